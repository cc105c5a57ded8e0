package io.sluice.filter.audit;

import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;
import java.util.List;

import org.apache.kafka.common.message.AddPartitionsToTxnResponseData;
import org.apache.kafka.common.message.AlterClientQuotasResponseData;
import org.apache.kafka.common.message.AlterConfigsResponseData;
import org.apache.kafka.common.message.AlterPartitionReassignmentsResponseData;
import org.apache.kafka.common.message.AlterReplicaLogDirsResponseData;
import org.apache.kafka.common.message.AlterShareGroupOffsetsResponseData;
import org.apache.kafka.common.message.AlterUserScramCredentialsResponseData;
import org.apache.kafka.common.message.ConsumerGroupDescribeResponseData;
import org.apache.kafka.common.message.CreateAclsResponseData;
import org.apache.kafka.common.message.CreatePartitionsResponseData;
import org.apache.kafka.common.message.CreateTopicsResponseData;
import org.apache.kafka.common.message.DeleteAclsResponseData;
import org.apache.kafka.common.message.DeleteGroupsResponseData;
import org.apache.kafka.common.message.DeleteRecordsResponseData;
import org.apache.kafka.common.message.DeleteShareGroupOffsetsResponseData;
import org.apache.kafka.common.message.DeleteTopicsResponseData;
import org.apache.kafka.common.message.DescribeConfigsResponseData;
import org.apache.kafka.common.message.DescribeGroupsResponseData;
import org.apache.kafka.common.message.DescribeProducersResponseData;
import org.apache.kafka.common.message.DescribeTransactionsResponseData;
import org.apache.kafka.common.message.ElectLeadersResponseData;
import org.apache.kafka.common.message.FetchResponseData;
import org.apache.kafka.common.message.FindCoordinatorResponseData;
import org.apache.kafka.common.message.IncrementalAlterConfigsResponseData;
import org.apache.kafka.common.message.ListOffsetsResponseData;
import org.apache.kafka.common.message.MetadataResponseData;
import org.apache.kafka.common.message.OffsetCommitResponseData;
import org.apache.kafka.common.message.OffsetDeleteResponseData;
import org.apache.kafka.common.message.OffsetFetchResponseData;
import org.apache.kafka.common.message.ProduceResponseData;
import org.apache.kafka.common.message.ShareFetchResponseData;
import org.apache.kafka.common.message.TxnOffsetCommitResponseData;
import org.apache.kafka.common.message.UpdateFeaturesResponseData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.ApiMessage;

/**
 * The errors a response gives, per resource ({@link Outcome}), for the events that need them: denials, policy refusals
 * and the outcome of admin requests. The APIs whose responses name what they answer (topics, partitions, groups,
 * config resources) are read here field by field; those that do not take the names from their request's
 * {@link RequestSummary} (a heartbeat's group, an ACL creation's ACL, matched by position); any other API's top-level
 * {@code errorCode} and {@code errorMessage}, where it has them, apply to the request's resources, or the cluster.
 * Records are never read (a Fetch response's partitions are read for their error codes only).
 */
final class ResponseOutcomes {

    private ResponseOutcomes() {
    }

    static Outcome.Collector of(ApiKeys api, short version, ApiMessage response, RequestSummary request) {
        Outcome.Collector c = new Outcome.Collector();
        switch (api) {
            case PRODUCE -> ((ProduceResponseData) response).responses().forEach(t -> t.partitionResponses().forEach(p -> c.addTopic(t.name(), t.topicId(),
                    p.errorCode(), p.errorMessage())));
            case FETCH -> {
                FetchResponseData r = (FetchResponseData) response;
                whole(c, request, r.errorCode(), null);
                r.responses().forEach(t -> t.partitions().forEach(p -> c.addTopic(t.topic(), t.topicId(), p.errorCode(), null)));
            }
            case SHARE_FETCH -> {
                ShareFetchResponseData r = (ShareFetchResponseData) response;
                whole(c, request, r.errorCode(), r.errorMessage());
                r.responses().forEach(t -> t.partitions().forEach(p -> c.addTopic(null, t.topicId(), p.errorCode(), p.errorMessage())));
            }
            case LIST_OFFSETS -> ((ListOffsetsResponseData) response).topics().forEach(t -> t.partitions().forEach(p -> c.add(Resource.TOPIC, t.name(), p.errorCode(), null)));
            case METADATA -> {
                MetadataResponseData r = (MetadataResponseData) response;
                whole(c, request, r.errorCode(), null);
                r.topics().forEach(t -> c.addTopic(t.name(), t.topicId(), t.errorCode(), null));
            }
            case OFFSET_COMMIT -> {
                ((OffsetCommitResponseData) response).topics().forEach(t -> t.partitions().forEach(p -> c.addTopic(t.name(), t.topicId(),
                        p.errorCode(), null)));
            }
            case TXN_OFFSET_COMMIT -> ((TxnOffsetCommitResponseData) response).topics().forEach(t -> t.partitions().forEach(p -> c.add(Resource.TOPIC, t.name(), p.errorCode(), null)));
            case OFFSET_FETCH -> {
                OffsetFetchResponseData r = (OffsetFetchResponseData) response;
                if (version < 8) {
                    whole(c, request, r.errorCode(), null);
                    r.topics().forEach(t -> t.partitions().forEach(p -> c.add(Resource.TOPIC, t.name(), p.errorCode(), null)));
                } else {
                    r.groups().forEach(g -> {
                        c.add(Resource.GROUP, g.groupId(), g.errorCode(), null);
                        g.topics().forEach(t -> t.partitions().forEach(p -> c.addTopic(t.name(), t.topicId(), p.errorCode(), null)));
                    });
                }
            }
            case FIND_COORDINATOR -> {
                FindCoordinatorResponseData r = (FindCoordinatorResponseData) response;
                if (version < 4) {
                    whole(c, request, r.errorCode(), r.errorMessage());
                } else {
                    String type = String.valueOf(request.settings().getOrDefault("keyType", Resource.GROUP));
                    r.coordinators().forEach(k -> c.add(type, k.key(), k.errorCode(), k.errorMessage()));
                }
            }
            case DESCRIBE_GROUPS -> ((DescribeGroupsResponseData) response).groups().forEach(g -> c.add(Resource.GROUP, g.groupId(), g.errorCode(), g.errorMessage()));
            case CONSUMER_GROUP_DESCRIBE -> ((ConsumerGroupDescribeResponseData) response).groups()
                    .forEach(g -> c.add(Resource.GROUP, g.groupId(), g.errorCode(), g.errorMessage()));
            case DESCRIBE_CONFIGS -> ((DescribeConfigsResponseData) response).results().forEach(res -> c.add(Resource.configResourceType(res.resourceType()),
                    res.resourceName(), res.errorCode(), res.errorMessage()));
            case DESCRIBE_PRODUCERS -> ((DescribeProducersResponseData) response).topics().forEach(t -> t.partitions().forEach(p -> c.add(Resource.TOPIC,
                    t.name(), p.errorCode(), p.errorMessage())));
            case DESCRIBE_TRANSACTIONS -> ((DescribeTransactionsResponseData) response).transactionStates().forEach(s -> c.add(Resource.TRANSACTIONAL_ID,
                    s.transactionalId(), s.errorCode(), null));
            case ADD_PARTITIONS_TO_TXN -> {
                AddPartitionsToTxnResponseData r = (AddPartitionsToTxnResponseData) response;
                if (version < 4) {
                    r.resultsByTopicV3AndBelow().forEach(t -> t.resultsByPartition().forEach(p -> c.add(Resource.TOPIC, t.name(), p.partitionErrorCode(), null)));
                } else {
                    whole(c, request, r.errorCode(), null);
                    r.resultsByTransaction().forEach(x -> x.topicResults().forEach(t -> t.resultsByPartition().forEach(p -> {
                        c.add(Resource.TRANSACTIONAL_ID, x.transactionalId(), p.partitionErrorCode(), null);
                        c.add(Resource.TOPIC, t.name(), p.partitionErrorCode(), null);
                    })));
                }
            }
            case CREATE_TOPICS -> ((CreateTopicsResponseData) response).topics().forEach(t -> c.add(Resource.TOPIC, t.name(), t.errorCode(), t.errorMessage()));
            case DELETE_TOPICS -> ((DeleteTopicsResponseData) response).responses().forEach(t -> c.addTopic(t.name(), t.topicId(),
                    t.errorCode(), t.errorMessage()));
            case CREATE_PARTITIONS -> ((CreatePartitionsResponseData) response).results().forEach(t -> c.add(Resource.TOPIC, t.name(), t.errorCode(), t.errorMessage()));
            case DELETE_RECORDS -> ((DeleteRecordsResponseData) response).topics().forEach(t -> t.partitions().forEach(p -> c.add(Resource.TOPIC, t.name(), p.errorCode(), null)));
            case ALTER_CONFIGS -> ((AlterConfigsResponseData) response).responses().forEach(res -> c.add(Resource.configResourceType(res.resourceType()),
                    res.resourceName(), res.errorCode(), res.errorMessage()));
            case INCREMENTAL_ALTER_CONFIGS -> ((IncrementalAlterConfigsResponseData) response).responses().forEach(res -> c.add(
                    Resource.configResourceType(res.resourceType()), res.resourceName(), res.errorCode(), res.errorMessage()));
            case CREATE_ACLS -> {
                List<CreateAclsResponseData.AclCreationResult> results = ((CreateAclsResponseData) response).results();
                for (int i = 0; i < results.size() && i < request.resources().size(); i++) {
                    Resource asked = request.resources().get(i);
                    c.add(asked.type(), asked.name(), results.get(i).errorCode(), results.get(i).errorMessage());
                }
            }
            case DELETE_ACLS -> {
                List<DeleteAclsResponseData.DeleteAclsFilterResult> results = ((DeleteAclsResponseData) response).filterResults();
                for (int i = 0; i < results.size() && i < request.resources().size(); i++) {
                    Resource asked = request.resources().get(i);
                    c.add(asked.type(), asked.name(), results.get(i).errorCode(), results.get(i).errorMessage());
                }
            }
            case DELETE_GROUPS -> ((DeleteGroupsResponseData) response).results().forEach(g -> c.add(Resource.GROUP, g.groupId(), g.errorCode(), null));
            case OFFSET_DELETE -> {
                OffsetDeleteResponseData r = (OffsetDeleteResponseData) response;
                whole(c, request, r.errorCode(), null);
                r.topics().forEach(t -> t.partitions().forEach(p -> c.add(Resource.TOPIC, t.name(), p.errorCode(), null)));
            }
            case ALTER_PARTITION_REASSIGNMENTS -> {
                AlterPartitionReassignmentsResponseData r = (AlterPartitionReassignmentsResponseData) response;
                whole(c, request, r.errorCode(), r.errorMessage());
                r.responses().forEach(t -> t.partitions().forEach(p -> c.add(Resource.TOPIC, t.name(), p.errorCode(), p.errorMessage())));
            }
            case ELECT_LEADERS -> {
                ElectLeadersResponseData r = (ElectLeadersResponseData) response;
                whole(c, request, r.errorCode(), null);
                r.replicaElectionResults().forEach(t -> t.partitionResult().forEach(p -> c.add(Resource.TOPIC, t.topic(), p.errorCode(), p.errorMessage())));
            }
            case ALTER_REPLICA_LOG_DIRS -> ((AlterReplicaLogDirsResponseData) response).results().forEach(t -> t.partitions().forEach(p -> c.add(Resource.TOPIC,
                    t.topicName(), p.errorCode(), null)));
            case ALTER_CLIENT_QUOTAS -> {
                List<AlterClientQuotasResponseData.EntryData> entries = ((AlterClientQuotasResponseData) response).entries();
                for (int i = 0; i < entries.size() && i < request.resources().size(); i++) {
                    Resource asked = request.resources().get(i);
                    c.add(asked.type(), asked.name(), entries.get(i).errorCode(), entries.get(i).errorMessage());
                }
            }
            case ALTER_USER_SCRAM_CREDENTIALS -> ((AlterUserScramCredentialsResponseData) response).results().forEach(u -> c.add("user", u.user(),
                    u.errorCode(), u.errorMessage()));
            case UPDATE_FEATURES -> {
                UpdateFeaturesResponseData r = (UpdateFeaturesResponseData) response;
                whole(c, request, r.errorCode(), r.errorMessage());
                r.results().forEach(f -> c.add("feature", f.feature(), f.errorCode(), f.errorMessage()));
            }
            case ALTER_SHARE_GROUP_OFFSETS -> {
                AlterShareGroupOffsetsResponseData r = (AlterShareGroupOffsetsResponseData) response;
                whole(c, request, r.errorCode(), r.errorMessage());
                r.responses().forEach(t -> t.partitions().forEach(p -> c.add(Resource.TOPIC, t.topicName(), p.errorCode(), p.errorMessage())));
            }
            case DELETE_SHARE_GROUP_OFFSETS -> {
                DeleteShareGroupOffsetsResponseData r = (DeleteShareGroupOffsetsResponseData) response;
                whole(c, request, r.errorCode(), r.errorMessage());
                r.responses().forEach(t -> c.add(Resource.TOPIC, t.topicName(), t.errorCode(), t.errorMessage()));
            }
            default -> whole(c, request, TopLevel.errorCode(response), TopLevel.errorMessage(response));
        }
        return c;
    }

    /** A request-wide error: it applies to each resource the request named, or to the cluster when it named none. */
    private static void whole(Outcome.Collector c, RequestSummary request, short errorCode, String message) {
        if (errorCode == 0) {
            return;
        }
        if (request.resources().isEmpty()) {
            c.add(Resource.CLUSTER, null, errorCode, message);
        } else {
            request.resources().forEach(r -> c.add(r.type(), r.name(), errorCode, message));
        }
    }

    /**
     * The top-level {@code errorCode}, {@code errorMessage} and {@code throttleTimeMs} of any response message, where
     * its class has them: looked up once per class, then a method handle call.
     */
    static final class TopLevel {

        private static final ClassValue<MethodHandle[]> ACCESSORS = new ClassValue<>() {
            @Override
            protected MethodHandle[] computeValue(Class<?> type) {
                return new MethodHandle[] {find(type, "errorCode", short.class), find(type, "errorMessage", String.class),
                        find(type, "throttleTimeMs", int.class)};
            }
        };

        private TopLevel() {
        }

        static short errorCode(ApiMessage message) {
            Object value = call(message, 0);
            return value == null ? 0 : (short) value;
        }

        static String errorMessage(ApiMessage message) {
            return (String) call(message, 1);
        }

        /** The response's {@code throttle_time_ms}, 0 for an API without one. */
        static int throttleTimeMs(ApiMessage message) {
            // The two the audit sees most, without the lookup.
            if (message instanceof ProduceResponseData produce) {
                return produce.throttleTimeMs();
            }
            if (message instanceof FetchResponseData fetch) {
                return fetch.throttleTimeMs();
            }
            Object value = call(message, 2);
            return value == null ? 0 : (int) value;
        }

        private static Object call(ApiMessage message, int index) {
            MethodHandle handle = ACCESSORS.get(message.getClass())[index];
            if (handle == null) {
                return null;
            }
            try {
                return handle.invoke(message);
            } catch (Throwable e) {
                throw new IllegalStateException("reading " + message.getClass().getSimpleName() + " failed", e);
            }
        }

        private static MethodHandle find(Class<?> type, String name, Class<?> returns) {
            try {
                return MethodHandles.publicLookup().findVirtual(type, name, MethodType.methodType(returns));
            } catch (NoSuchMethodException | IllegalAccessException e) {
                return null;
            }
        }
    }
}
