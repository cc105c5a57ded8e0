package io.sluice.filter.jwt.enforce;

import java.util.EnumSet;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;

import org.apache.kafka.common.errors.ApiException;
import org.apache.kafka.common.errors.ClusterAuthorizationException;
import org.apache.kafka.common.errors.GroupAuthorizationException;
import org.apache.kafka.common.errors.TopicAuthorizationException;
import org.apache.kafka.common.message.AddOffsetsToTxnRequestData;
import org.apache.kafka.common.message.AddPartitionsToTxnRequestData;
import org.apache.kafka.common.message.ConsumerGroupHeartbeatRequestData;
import org.apache.kafka.common.message.DescribeTopicPartitionsRequestData;
import org.apache.kafka.common.message.EndTxnRequestData;
import org.apache.kafka.common.message.FetchRequestData;
import org.apache.kafka.common.message.FindCoordinatorRequestData;
import org.apache.kafka.common.message.HeartbeatRequestData;
import org.apache.kafka.common.message.InitProducerIdRequestData;
import org.apache.kafka.common.message.JoinGroupRequestData;
import org.apache.kafka.common.message.LeaveGroupRequestData;
import org.apache.kafka.common.message.MetadataRequestData;
import org.apache.kafka.common.message.OffsetCommitRequestData;
import org.apache.kafka.common.message.OffsetFetchRequestData;
import org.apache.kafka.common.message.OffsetForLeaderEpochRequestData;
import org.apache.kafka.common.message.ProduceRequestData;
import org.apache.kafka.common.message.StreamsGroupHeartbeatRequestData;
import org.apache.kafka.common.message.SyncGroupRequestData;
import org.apache.kafka.common.message.TxnOffsetCommitRequestData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.ApiMessage;

import io.sluice.filter.records.RecordReaders;
import io.sluice.proxy.filter.FilterContext;

/**
 * Which permission each Kafka API needs, for an authenticated connection (the table in docs/jwt.md).
 * Anything not named here needs admin: a new API is closed until someone decides otherwise.
 */
public final class RequestRules {

    /** Metadata v4 is the first that can ask the broker not to create the topics it names; older ones are refused. */
    public static final short OLDEST_METADATA_VERSION = 4;

    /** Allowed to every authenticated principal: they touch no topic, group or transaction. */
    private static final Set<ApiKeys> OPEN = EnumSet.of(ApiKeys.API_VERSIONS, ApiKeys.DESCRIBE_CLUSTER,
            ApiKeys.GET_TELEMETRY_SUBSCRIPTIONS, ApiKeys.PUSH_TELEMETRY);

    /** Admin-only APIs whose refusal clients understand best as a topic authorization error. */
    private static final Set<ApiKeys> ADMIN_TOPIC_APIS = EnumSet.of(ApiKeys.CREATE_TOPICS, ApiKeys.DELETE_TOPICS,
            ApiKeys.CREATE_PARTITIONS, ApiKeys.DELETE_RECORDS);

    /** Admin-only APIs about groups. */
    private static final Set<ApiKeys> ADMIN_GROUP_APIS = EnumSet.of(ApiKeys.DELETE_GROUPS, ApiKeys.OFFSET_DELETE,
            ApiKeys.DESCRIBE_SHARE_GROUP_OFFSETS, ApiKeys.ALTER_SHARE_GROUP_OFFSETS, ApiKeys.DELETE_SHARE_GROUP_OFFSETS,
            ApiKeys.SHARE_GROUP_HEARTBEAT, ApiKeys.SHARE_FETCH, ApiKeys.SHARE_ACKNOWLEDGE);

    private RequestRules() {
    }

    /**
     * Decides one request of an authenticated principal; completes on the connection's event loop.
     *
     * @param records how the keys of produced and fetched records are read: the filter's limits, counted when refused
     */
    public static CompletionStage<Decision> decide(ApiKeys api, short version, ApiMessage request, Access access, RecordReaders records,
                                                   FilterContext context) {
        if (api == ApiKeys.METADATA) {
            return done(TopicRules.metadata(version, (MetadataRequestData) request, access));
        }
        if (access.admin() || OPEN.contains(api)) {
            return done(Decision.FORWARD);
        }
        return switch (api) {
            case PRODUCE -> TopicRules.produce((ProduceRequestData) request, access, records, context);
            case FETCH -> TopicRules.fetch((FetchRequestData) request, access, records, context);
            case LIST_OFFSETS -> done(TopicRules.listOffsets(access));
            case OFFSET_FOR_LEADER_EPOCH -> done(TopicRules.offsetForLeaderEpoch((OffsetForLeaderEpochRequestData) request, access));
            case DESCRIBE_TOPIC_PARTITIONS -> done(TopicPartitionPages.describe(version, (DescribeTopicPartitionsRequestData) request, access, context));
            case DESCRIBE_PRODUCERS -> done(TopicRules.describeProducers(access));

            case FIND_COORDINATOR -> done(GroupRules.findCoordinator(version, (FindCoordinatorRequestData) request, access));
            case JOIN_GROUP -> done(GroupRules.joinGroup((JoinGroupRequestData) request, access));
            case SYNC_GROUP -> done(GroupRules.member(((SyncGroupRequestData) request).groupId(), access));
            case HEARTBEAT -> done(GroupRules.member(((HeartbeatRequestData) request).groupId(), access));
            case LEAVE_GROUP -> done(GroupRules.member(((LeaveGroupRequestData) request).groupId(), access));
            case STREAMS_GROUP_HEARTBEAT -> StreamsRules.heartbeat((StreamsGroupHeartbeatRequestData) request, access, context);
            case CONSUMER_GROUP_HEARTBEAT -> done(GroupRules.consumerGroupHeartbeat((ConsumerGroupHeartbeatRequestData) request, access));
            case OFFSET_COMMIT -> GroupRules.offsetCommit((OffsetCommitRequestData) request, access, context);
            case OFFSET_FETCH -> done(GroupRules.offsetFetch(version, (OffsetFetchRequestData) request, access, context));
            case DESCRIBE_GROUPS -> done(GroupRules.describeGroups(version, access));
            case LIST_GROUPS -> done(GroupRules.listGroups(access));
            case CONSUMER_GROUP_DESCRIBE -> done(GroupRules.consumerGroupDescribe(access));
            case SHARE_GROUP_DESCRIBE -> done(GroupRules.shareGroupDescribe(access));
            case STREAMS_GROUP_DESCRIBE -> done(GroupRules.streamsGroupDescribe(access));

            case INIT_PRODUCER_ID -> done(TransactionRules.initProducerId((InitProducerIdRequestData) request, access));
            case ADD_PARTITIONS_TO_TXN -> done(TransactionRules.addPartitions(version, (AddPartitionsToTxnRequestData) request, access));
            case ADD_OFFSETS_TO_TXN -> done(TransactionRules.addOffsets((AddOffsetsToTxnRequestData) request, access));
            case END_TXN -> done(TransactionRules.endTxn((EndTxnRequestData) request, access));
            case TXN_OFFSET_COMMIT -> done(TransactionRules.txnOffsetCommit((TxnOffsetCommitRequestData) request, access));

            default -> done(Decision.deny(adminOnly(api)));
        };
    }

    private static ApiException adminOnly(ApiKeys api) {
        String message = api.name + " needs admin permission";
        if (ADMIN_TOPIC_APIS.contains(api)) {
            return new TopicAuthorizationException(message);
        }
        if (ADMIN_GROUP_APIS.contains(api)) {
            return new GroupAuthorizationException(message);
        }
        return new ClusterAuthorizationException(message);
    }

    private static CompletionStage<Decision> done(Decision decision) {
        return CompletableFuture.completedFuture(decision);
    }
}
