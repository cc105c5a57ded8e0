package io.sluice.filter.routing;

import org.apache.kafka.common.message.ApiVersionsResponseData;
import org.apache.kafka.common.protocol.ApiKeys;

import io.sluice.proxy.cluster.ApiVersionsFilter;

/**
 * The versions KeyRouting can route, offered instead of the broker's. Topic ids replace topic names in newer
 * Produce, Fetch, OffsetCommit and OffsetFetch versions; a virtual topic has no id the broker knows, so clients
 * are offered the last versions with names. The APIs that only know topics by id, or resolve subscriptions on
 * the broker, are not offered at all: the KIP-848 consumer protocol (clients fall back to the classic one, or
 * fail clearly with group.protocol=consumer), share groups and streams groups.
 */
final class ApiVersionsLimits {

    static final short PRODUCE_WITH_NAMES = 12;
    static final short FETCH_WITH_NAMES = 12;
    static final short OFFSET_COMMIT_WITH_NAMES = 9;
    static final short OFFSET_FETCH_WITH_NAMES = 9;
    /** OffsetFetch v8 is the first with a list of groups; older clients (before Kafka 3.0) are not served. */
    static final short OFFSET_FETCH_GROUPS = 8;
    /** Metadata v4 is the first that can ask the broker not to create the topics it names. */
    static final short METADATA_WITHOUT_AUTO_CREATE = 4;

    private static final ApiKeys[] WITHDRAWN = { ApiKeys.CONSUMER_GROUP_HEARTBEAT, ApiKeys.CONSUMER_GROUP_DESCRIBE,
            ApiKeys.SHARE_GROUP_HEARTBEAT, ApiKeys.SHARE_GROUP_DESCRIBE, ApiKeys.SHARE_FETCH, ApiKeys.SHARE_ACKNOWLEDGE,
            ApiKeys.STREAMS_GROUP_HEARTBEAT, ApiKeys.STREAMS_GROUP_DESCRIBE, ApiKeys.DESCRIBE_TOPIC_PARTITIONS };

    private ApiVersionsLimits() {
    }

    static void apply(ApiVersionsResponseData response) {
        if (response.errorCode() != 0) {
            return;
        }
        ApiVersionsFilter.restrict(response, ApiKeys.PRODUCE, (short) 0, PRODUCE_WITH_NAMES);
        ApiVersionsFilter.restrict(response, ApiKeys.FETCH, (short) 0, FETCH_WITH_NAMES);
        ApiVersionsFilter.restrict(response, ApiKeys.OFFSET_COMMIT, (short) 0, OFFSET_COMMIT_WITH_NAMES);
        ApiVersionsFilter.restrict(response, ApiKeys.OFFSET_FETCH, OFFSET_FETCH_GROUPS, OFFSET_FETCH_WITH_NAMES);
        ApiVersionsFilter.restrict(response, ApiKeys.METADATA, METADATA_WITHOUT_AUTO_CREATE, Short.MAX_VALUE);
        for (ApiKeys api : WITHDRAWN) {
            ApiVersionsFilter.withdraw(response, api);
        }
    }

    /** Whether a request of this version can be routed; the others were never offered. */
    static boolean routable(ApiKeys api, short version) {
        return switch (api) {
            case PRODUCE -> version <= PRODUCE_WITH_NAMES;
            case FETCH -> version <= FETCH_WITH_NAMES;
            case OFFSET_COMMIT -> version <= OFFSET_COMMIT_WITH_NAMES;
            case OFFSET_FETCH -> version >= OFFSET_FETCH_GROUPS && version <= OFFSET_FETCH_WITH_NAMES;
            case METADATA -> version >= METADATA_WITHOUT_AUTO_CREATE;
            default -> true;
        };
    }
}
