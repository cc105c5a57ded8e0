package io.sluice.filter.jwt.enforce;

import java.util.HashMap;
import java.util.Map;

import io.sluice.auth.Permissions;
import io.sluice.auth.TopicAccess;

/**
 * One connection's view of its principal's {@link Permissions}, with the per-topic answers remembered:
 * Produce and Fetch ask about the same few topics many times a second. Event-loop confined.
 */
public final class Access {

    /** More distinct topics than this on one connection is unusual; start over rather than grow without bound. */
    private static final int MAX_CACHED_TOPICS = 10_000;

    private final Permissions permissions;
    private final Map<String, TopicAccess> topics = new HashMap<>();

    public Access(Permissions permissions) {
        this.permissions = permissions;
    }

    public boolean admin() {
        return permissions.isAdmin();
    }

    public TopicAccess topic(String name) {
        TopicAccess access = topics.get(name);
        if (access == null) {
            if (topics.size() >= MAX_CACHED_TOPICS) {
                topics.clear();
            }
            access = permissions.topic(name);
            topics.put(name, access);
        }
        return access;
    }

    public boolean describe(String topic) {
        return topic != null && topic(topic).describe();
    }

    public boolean group(String groupId) {
        return permissions.canUseGroup(groupId);
    }

    public boolean transactionalId(String transactionalId) {
        return permissions.canUseTransactionalId(transactionalId);
    }
}
