package io.sluice.filter.routing;

import java.util.EnumSet;
import java.util.Set;

import org.apache.kafka.common.message.ApiVersionsResponseData;
import org.apache.kafka.common.protocol.ApiKeys;

import io.sluice.proxy.filter.ApiVersionsResponses;

/**
 * The versions KeyRouting can route, offered instead of the broker's. Topic ids replace topic names in newer
 * Produce, Fetch, OffsetCommit and OffsetFetch versions; a virtual topic has no id the broker knows, so clients
 * are offered the last versions with names. APIs that name topics but are not routed are not offered at all
 * (and refused when sent anyway, see KeyRoutingFilter): among them the KIP-848 consumer protocol (clients fall
 * back to the classic one, or fail clearly with group.protocol=consumer), share and streams groups,
 * DescribeTopicPartitions, DescribeProducers, DeleteRecords and the topic admin APIs.
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

    /** The APIs KeyRouting rewrites: their topic names are translated between virtual and real. */
    static final Set<ApiKeys> ROUTED = EnumSet.of(ApiKeys.API_VERSIONS, ApiKeys.METADATA, ApiKeys.PRODUCE, ApiKeys.FETCH,
            ApiKeys.LIST_OFFSETS, ApiKeys.OFFSET_FOR_LEADER_EPOCH, ApiKeys.OFFSET_COMMIT, ApiKeys.OFFSET_FETCH, ApiKeys.TXN_OFFSET_COMMIT,
            ApiKeys.ADD_PARTITIONS_TO_TXN, ApiKeys.DESCRIBE_CONFIGS);

    /**
     * The APIs that name no topic, passed untouched: authentication, coordinators, classic group membership
     * (JoinGroup, SyncGroup and DescribeGroups carry the clients' own subscription bytes, which hold the virtual
     * names the clients use), transactions by id, and cluster-level APIs. Every other API names topics without
     * KeyRouting translating them, and would reach the real topics behind the virtual ones: it is neither offered
     * nor served. A new API is refused until someone classifies it.
     */
    static final Set<ApiKeys> PASSED = EnumSet.of(ApiKeys.SASL_HANDSHAKE, ApiKeys.SASL_AUTHENTICATE, ApiKeys.FIND_COORDINATOR,
            ApiKeys.JOIN_GROUP, ApiKeys.SYNC_GROUP, ApiKeys.HEARTBEAT, ApiKeys.LEAVE_GROUP, ApiKeys.LIST_GROUPS, ApiKeys.DESCRIBE_GROUPS,
            ApiKeys.DELETE_GROUPS, ApiKeys.INIT_PRODUCER_ID, ApiKeys.ADD_OFFSETS_TO_TXN, ApiKeys.END_TXN, ApiKeys.LIST_TRANSACTIONS,
            ApiKeys.DESCRIBE_CLUSTER, ApiKeys.GET_TELEMETRY_SUBSCRIPTIONS, ApiKeys.PUSH_TELEMETRY, ApiKeys.DESCRIBE_CLIENT_QUOTAS,
            ApiKeys.ALTER_CLIENT_QUOTAS, ApiKeys.DESCRIBE_USER_SCRAM_CREDENTIALS, ApiKeys.ALTER_USER_SCRAM_CREDENTIALS,
            ApiKeys.CREATE_DELEGATION_TOKEN, ApiKeys.RENEW_DELEGATION_TOKEN, ApiKeys.EXPIRE_DELEGATION_TOKEN,
            ApiKeys.DESCRIBE_DELEGATION_TOKEN, ApiKeys.UPDATE_FEATURES, ApiKeys.DESCRIBE_QUORUM);

    private ApiVersionsLimits() {
    }

    static void apply(ApiVersionsResponseData response) {
        if (response.errorCode() != 0) {
            return;
        }
        ApiVersionsResponses.restrict(response, ApiKeys.PRODUCE, (short) 0, PRODUCE_WITH_NAMES);
        ApiVersionsResponses.restrict(response, ApiKeys.FETCH, (short) 0, FETCH_WITH_NAMES);
        ApiVersionsResponses.restrict(response, ApiKeys.OFFSET_COMMIT, (short) 0, OFFSET_COMMIT_WITH_NAMES);
        ApiVersionsResponses.restrict(response, ApiKeys.OFFSET_FETCH, OFFSET_FETCH_GROUPS, OFFSET_FETCH_WITH_NAMES);
        ApiVersionsResponses.restrict(response, ApiKeys.METADATA, METADATA_WITHOUT_AUTO_CREATE, Short.MAX_VALUE);
        for (ApiKeys api : ApiKeys.values()) {
            if (!offered(api)) {
                ApiVersionsResponses.withdraw(response, api);
            }
        }
    }

    /** Whether the API is served at all: routed, or naming no topic. */
    static boolean offered(ApiKeys api) {
        return ROUTED.contains(api) || PASSED.contains(api);
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
