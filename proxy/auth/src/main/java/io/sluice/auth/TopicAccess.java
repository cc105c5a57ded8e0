package io.sluice.auth;

/**
 * Everything a principal may do with one topic, worked out once from its {@link Permissions} so that
 * per-record checks are a field read and a few pattern matches.
 *
 * @param describe see the topic (metadata, offsets, configs are admin's)
 * @param read     fetch records: all, some keys, or none
 * @param write    produce records: all, some keys, or none
 */
public record TopicAccess(boolean describe, KeyAccess read, KeyAccess write) {

    static final TopicAccess NONE = new TopicAccess(false, KeyAccess.NONE, KeyAccess.NONE);
    static final TopicAccess ALL = new TopicAccess(true, KeyAccess.ALL, KeyAccess.ALL);
}
