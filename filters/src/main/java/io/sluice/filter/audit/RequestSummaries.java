package io.sluice.filter.audit;

import java.util.ArrayList;
import java.util.EnumSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

import org.apache.kafka.common.acl.AclOperation;
import org.apache.kafka.common.acl.AclPermissionType;
import org.apache.kafka.common.message.AddOffsetsToTxnRequestData;
import org.apache.kafka.common.message.AddPartitionsToTxnRequestData;
import org.apache.kafka.common.message.AlterClientQuotasRequestData;
import org.apache.kafka.common.message.AlterConfigsRequestData;
import org.apache.kafka.common.message.AlterPartitionReassignmentsRequestData;
import org.apache.kafka.common.message.AlterReplicaLogDirsRequestData;
import org.apache.kafka.common.message.AlterShareGroupOffsetsRequestData;
import org.apache.kafka.common.message.AlterUserScramCredentialsRequestData;
import org.apache.kafka.common.message.ConsumerGroupHeartbeatRequestData;
import org.apache.kafka.common.message.CreateAclsRequestData;
import org.apache.kafka.common.message.CreateDelegationTokenRequestData;
import org.apache.kafka.common.message.CreatePartitionsRequestData;
import org.apache.kafka.common.message.CreateTopicsRequestData;
import org.apache.kafka.common.message.DeleteAclsRequestData;
import org.apache.kafka.common.message.DeleteGroupsRequestData;
import org.apache.kafka.common.message.DeleteRecordsRequestData;
import org.apache.kafka.common.message.DeleteShareGroupOffsetsRequestData;
import org.apache.kafka.common.message.DeleteTopicsRequestData;
import org.apache.kafka.common.message.ElectLeadersRequestData;
import org.apache.kafka.common.message.EndTxnRequestData;
import org.apache.kafka.common.message.ExpireDelegationTokenRequestData;
import org.apache.kafka.common.message.FindCoordinatorRequestData;
import org.apache.kafka.common.message.HeartbeatRequestData;
import org.apache.kafka.common.message.IncrementalAlterConfigsRequestData;
import org.apache.kafka.common.message.InitProducerIdRequestData;
import org.apache.kafka.common.message.JoinGroupRequestData;
import org.apache.kafka.common.message.LeaveGroupRequestData;
import org.apache.kafka.common.message.OffsetCommitRequestData;
import org.apache.kafka.common.message.OffsetDeleteRequestData;
import org.apache.kafka.common.message.OffsetFetchRequestData;
import org.apache.kafka.common.message.RenewDelegationTokenRequestData;
import org.apache.kafka.common.message.SaslHandshakeRequestData;
import org.apache.kafka.common.message.ShareGroupHeartbeatRequestData;
import org.apache.kafka.common.message.StreamsGroupHeartbeatRequestData;
import org.apache.kafka.common.message.SyncGroupRequestData;
import org.apache.kafka.common.message.TxnOffsetCommitRequestData;
import org.apache.kafka.common.message.UnregisterBrokerRequestData;
import org.apache.kafka.common.message.UpdateFeaturesRequestData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.resource.PatternType;
import org.apache.kafka.common.resource.ResourceType;

/**
 * What the Audit filter reads of a request before forwarding it, for the APIs whose responses do not say what they
 * answer (a group's heartbeat, an ACL's creation) and for every admin-class request, whose event describes what was
 * asked. Each API's summary reads names, counts and settings, and config values through {@link Secrets#configValue};
 * never a field that can hold a secret: not SASL bytes, not a delegation token's HMAC, not a SCRAM salt or salted
 * password, not a record.
 */
final class RequestSummaries {

    /** Config entries shown per resource; the rest counted. */
    static final int MAX_CONFIGS = 10;
    /** Partitions shown per topic in details; the rest counted. */
    static final int MAX_PARTITIONS = 10;

    /**
     * The admin-class APIs: those that change the cluster's topics, configs, ACLs, groups, offsets, quotas, users,
     * tokens, features or brokers. Each request of them is an {@code admin} event with its outcome. (OffsetCommit
     * is one when made outside group membership: see {@link #of}.)
     */
    static final Set<ApiKeys> ADMIN = EnumSet.of(ApiKeys.CREATE_TOPICS, ApiKeys.DELETE_TOPICS, ApiKeys.CREATE_PARTITIONS, ApiKeys.DELETE_RECORDS,
            ApiKeys.ALTER_CONFIGS, ApiKeys.INCREMENTAL_ALTER_CONFIGS, ApiKeys.CREATE_ACLS, ApiKeys.DELETE_ACLS, ApiKeys.DELETE_GROUPS,
            ApiKeys.OFFSET_DELETE, ApiKeys.ALTER_PARTITION_REASSIGNMENTS, ApiKeys.ELECT_LEADERS, ApiKeys.ALTER_REPLICA_LOG_DIRS,
            ApiKeys.ALTER_CLIENT_QUOTAS, ApiKeys.ALTER_USER_SCRAM_CREDENTIALS, ApiKeys.CREATE_DELEGATION_TOKEN, ApiKeys.RENEW_DELEGATION_TOKEN,
            ApiKeys.EXPIRE_DELEGATION_TOKEN, ApiKeys.UPDATE_FEATURES, ApiKeys.UNREGISTER_BROKER, ApiKeys.ALTER_SHARE_GROUP_OFFSETS,
            ApiKeys.DELETE_SHARE_GROUP_OFFSETS, ApiKeys.ADD_RAFT_VOTER, ApiKeys.REMOVE_RAFT_VOTER);

    /** The APIs the filter reads the request of: the admin ones, and those whose responses need their request's names. */
    static final Set<ApiKeys> READ = EnumSet.of(ApiKeys.SASL_HANDSHAKE, ApiKeys.SASL_AUTHENTICATE, ApiKeys.OFFSET_COMMIT,
            ApiKeys.JOIN_GROUP, ApiKeys.SYNC_GROUP, ApiKeys.HEARTBEAT, ApiKeys.LEAVE_GROUP, ApiKeys.CONSUMER_GROUP_HEARTBEAT,
            ApiKeys.SHARE_GROUP_HEARTBEAT, ApiKeys.STREAMS_GROUP_HEARTBEAT, ApiKeys.TXN_OFFSET_COMMIT, ApiKeys.OFFSET_FETCH,
            ApiKeys.INIT_PRODUCER_ID, ApiKeys.ADD_OFFSETS_TO_TXN, ApiKeys.END_TXN, ApiKeys.ADD_PARTITIONS_TO_TXN, ApiKeys.FIND_COORDINATOR);

    static {
        READ.addAll(ADMIN);
    }

    private RequestSummaries() {
    }

    static RequestSummary of(ApiKeys api, short version, ApiMessage request) {
        boolean admin = ADMIN.contains(api);
        RequestSummary.Builder b = new RequestSummary.Builder(api, admin || isAdminOffsetCommit(api, request));
        switch (api) {
            case SASL_HANDSHAKE -> b.setting("mechanism", Secrets.text(((SaslHandshakeRequestData) request).mechanism()));
            case CREATE_TOPICS -> createTopics((CreateTopicsRequestData) request, b);
            case DELETE_TOPICS -> deleteTopics((DeleteTopicsRequestData) request, b);
            case CREATE_PARTITIONS -> {
                CreatePartitionsRequestData r = (CreatePartitionsRequestData) request;
                r.topics().forEach(t -> b.resource(Resource.TOPIC, t.name(), details("count", t.count())));
                validateOnly(b, r.validateOnly());
            }
            case DELETE_RECORDS -> ((DeleteRecordsRequestData) request).topics().forEach(t -> {
                Map<String, Object> before = new LinkedHashMap<>();
                t.partitions().stream().limit(MAX_PARTITIONS).forEach(p -> before.put(String.valueOf(p.partitionIndex()), p.offset()));
                b.resource(Resource.TOPIC, t.name(), details("beforeOffsets", before, "partitions", t.partitions().size()));
            });
            case ALTER_CONFIGS -> {
                AlterConfigsRequestData r = (AlterConfigsRequestData) request;
                r.resources().forEach(res -> {
                    List<Map<String, Object>> configs = new ArrayList<>();
                    res.configs().stream().limit(MAX_CONFIGS).forEach(c -> configs.add(config(res.resourceType(), c.name(), null, c.value())));
                    b.resource(Resource.configResourceType(res.resourceType()), res.resourceName(), configDetails(configs, res.configs().size()));
                });
                validateOnly(b, r.validateOnly());
            }
            case INCREMENTAL_ALTER_CONFIGS -> {
                IncrementalAlterConfigsRequestData r = (IncrementalAlterConfigsRequestData) request;
                r.resources().forEach(res -> {
                    List<Map<String, Object>> configs = new ArrayList<>();
                    res.configs().stream().limit(MAX_CONFIGS).forEach(c -> configs.add(config(res.resourceType(), c.name(), operation(c.configOperation()), c.value())));
                    b.resource(Resource.configResourceType(res.resourceType()), res.resourceName(), configDetails(configs, res.configs().size()));
                });
                validateOnly(b, r.validateOnly());
            }
            case CREATE_ACLS -> ((CreateAclsRequestData) request).creations().forEach(c -> b.resource("acl",
                    aclResource(c.resourceType(), c.resourcePatternType(), c.resourceName()),
                    acl(c.principal(), c.host(), c.operation(), c.permissionType())));
            case DELETE_ACLS -> ((DeleteAclsRequestData) request).filters().forEach(f -> b.resource("aclFilter",
                    aclResource(f.resourceTypeFilter(), f.patternTypeFilter(), f.resourceNameFilter()),
                    acl(f.principalFilter(), f.hostFilter(), f.operation(), f.permissionType())));
            case DELETE_GROUPS -> ((DeleteGroupsRequestData) request).groupsNames().forEach(g -> b.resource(Resource.GROUP, g));
            case OFFSET_DELETE -> {
                OffsetDeleteRequestData r = (OffsetDeleteRequestData) request;
                b.resource(Resource.GROUP, r.groupId());
                r.topics().forEach(t -> b.resource(Resource.TOPIC, t.name(),
                        details("partitions", t.partitions().stream().limit(MAX_PARTITIONS).map(p -> p.partitionIndex()).toList())));
            }
            case OFFSET_COMMIT -> offsetCommit((OffsetCommitRequestData) request, b);
            case ALTER_PARTITION_REASSIGNMENTS -> ((AlterPartitionReassignmentsRequestData) request).topics().forEach(t -> {
                Map<String, Object> replicas = new LinkedHashMap<>();
                t.partitions().stream().limit(MAX_PARTITIONS).forEach(p -> replicas.put(String.valueOf(p.partitionIndex()), p.replicas()));
                b.resource(Resource.TOPIC, t.name(), details("replicas", replicas, "partitions", t.partitions().size()));
            });
            case ELECT_LEADERS -> {
                ElectLeadersRequestData r = (ElectLeadersRequestData) request;
                b.setting("electionType", r.electionType() == 1 ? "UNCLEAN" : "PREFERRED");
                if (r.topicPartitions() == null) {
                    b.resource(Resource.CLUSTER, null, details("allPartitions", true));
                } else {
                    r.topicPartitions().forEach(t -> b.resource(Resource.TOPIC, t.topic(),
                            details("partitions", t.partitions().stream().limit(MAX_PARTITIONS).toList())));
                }
            }
            case ALTER_REPLICA_LOG_DIRS -> ((AlterReplicaLogDirsRequestData) request).dirs().forEach(d -> d.topics().forEach(t -> b.resource(
                    Resource.TOPIC, t.name(), details("logDir", Secrets.text(d.path()), "partitions", t.partitions().stream().limit(MAX_PARTITIONS).toList()))));
            case ALTER_CLIENT_QUOTAS -> {
                AlterClientQuotasRequestData r = (AlterClientQuotasRequestData) request;
                r.entries().forEach(e -> {
                    Map<String, Object> ops = new LinkedHashMap<>();
                    e.ops().stream().limit(MAX_CONFIGS).forEach(op -> ops.put(Secrets.text(op.key()), op.remove() ? null : op.value()));
                    b.resource("clientQuota", quotaEntity(e.entity()), details("quotas", ops));
                });
                validateOnly(b, r.validateOnly());
            }
            case ALTER_USER_SCRAM_CREDENTIALS -> {
                // Names and mechanisms only: never the salt or the salted password.
                AlterUserScramCredentialsRequestData r = (AlterUserScramCredentialsRequestData) request;
                r.deletions().forEach(d -> b.resource("user", d.name(), details("action", "delete", "mechanism", scram(d.mechanism()))));
                r.upsertions().forEach(u -> b.resource("user", u.name(),
                        details("action", "upsert", "mechanism", scram(u.mechanism()), "iterations", u.iterations())));
            }
            case CREATE_DELEGATION_TOKEN -> {
                CreateDelegationTokenRequestData r = (CreateDelegationTokenRequestData) request;
                String owner = r.ownerPrincipalName() == null ? null : r.ownerPrincipalType() + ":" + r.ownerPrincipalName();
                b.resource("delegationToken", owner, details("renewers",
                        r.renewers().stream().limit(MAX_CONFIGS).map(x -> Secrets.text(x.principalType() + ":" + x.principalName())).toList(),
                        "maxLifetimeMs", r.maxLifetimeMs()));
            }
            // The token is named by its HMAC, which is the secret: it is never read.
            case RENEW_DELEGATION_TOKEN -> b.resource("delegationToken", null,
                    details("renewPeriodMs", ((RenewDelegationTokenRequestData) request).renewPeriodMs()));
            case EXPIRE_DELEGATION_TOKEN -> b.resource("delegationToken", null,
                    details("expiryTimePeriodMs", ((ExpireDelegationTokenRequestData) request).expiryTimePeriodMs()));
            case UPDATE_FEATURES -> {
                UpdateFeaturesRequestData r = (UpdateFeaturesRequestData) request;
                r.featureUpdates().forEach(f -> b.resource("feature", f.feature(), details("maxVersionLevel", f.maxVersionLevel(), "upgradeType", f.upgradeType())));
                validateOnly(b, r.validateOnly());
            }
            case UNREGISTER_BROKER -> b.resource("broker", String.valueOf(((UnregisterBrokerRequestData) request).brokerId()));
            case ALTER_SHARE_GROUP_OFFSETS -> {
                AlterShareGroupOffsetsRequestData r = (AlterShareGroupOffsetsRequestData) request;
                b.resource(Resource.GROUP, r.groupId());
                r.topics().forEach(t -> {
                    Map<String, Object> starts = new LinkedHashMap<>();
                    t.partitions().stream().limit(MAX_PARTITIONS).forEach(p -> starts.put(String.valueOf(p.partitionIndex()), p.startOffset()));
                    b.resource(Resource.TOPIC, t.topicName(), details("startOffsets", starts));
                });
            }
            case DELETE_SHARE_GROUP_OFFSETS -> {
                DeleteShareGroupOffsetsRequestData r = (DeleteShareGroupOffsetsRequestData) request;
                b.resource(Resource.GROUP, r.groupId());
                r.topics().forEach(t -> b.resource(Resource.TOPIC, t.topicName()));
            }
            case JOIN_GROUP -> b.resource(Resource.GROUP, ((JoinGroupRequestData) request).groupId());
            case SYNC_GROUP -> b.resource(Resource.GROUP, ((SyncGroupRequestData) request).groupId());
            case HEARTBEAT -> b.resource(Resource.GROUP, ((HeartbeatRequestData) request).groupId());
            case LEAVE_GROUP -> b.resource(Resource.GROUP, ((LeaveGroupRequestData) request).groupId());
            case CONSUMER_GROUP_HEARTBEAT -> b.resource(Resource.GROUP, ((ConsumerGroupHeartbeatRequestData) request).groupId());
            case SHARE_GROUP_HEARTBEAT -> b.resource(Resource.GROUP, ((ShareGroupHeartbeatRequestData) request).groupId());
            case STREAMS_GROUP_HEARTBEAT -> b.resource(Resource.GROUP, ((StreamsGroupHeartbeatRequestData) request).groupId());
            case TXN_OFFSET_COMMIT -> {
                TxnOffsetCommitRequestData r = (TxnOffsetCommitRequestData) request;
                b.resource(Resource.TRANSACTIONAL_ID, r.transactionalId()).resource(Resource.GROUP, r.groupId());
            }
            case OFFSET_FETCH -> {
                OffsetFetchRequestData r = (OffsetFetchRequestData) request;
                if (version < 8) {
                    b.resource(Resource.GROUP, r.groupId());
                }
            }
            case INIT_PRODUCER_ID -> {
                String id = ((InitProducerIdRequestData) request).transactionalId();
                if (id != null) {
                    b.resource(Resource.TRANSACTIONAL_ID, id);
                }
            }
            case ADD_OFFSETS_TO_TXN -> {
                AddOffsetsToTxnRequestData r = (AddOffsetsToTxnRequestData) request;
                b.resource(Resource.TRANSACTIONAL_ID, r.transactionalId()).resource(Resource.GROUP, r.groupId());
            }
            case END_TXN -> b.resource(Resource.TRANSACTIONAL_ID, ((EndTxnRequestData) request).transactionalId());
            case ADD_PARTITIONS_TO_TXN -> {
                AddPartitionsToTxnRequestData r = (AddPartitionsToTxnRequestData) request;
                if (version < 4) {
                    b.resource(Resource.TRANSACTIONAL_ID, r.v3AndBelowTransactionalId());
                }
            }
            case FIND_COORDINATOR -> {
                FindCoordinatorRequestData r = (FindCoordinatorRequestData) request;
                b.setting("keyType", Resource.coordinatorKeyType(r.keyType()));
                if (version < 4) {
                    b.resource(Resource.coordinatorKeyType(r.keyType()), r.key());
                }
            }
            default -> {
                // An admin API without names of its own (a Raft voter change): the request as a whole.
                if (admin) {
                    b.resource(Resource.CLUSTER, null);
                }
            }
        }
        return b.build();
    }

    /**
     * An OffsetCommit made outside group membership (generation or member epoch -1): what Admin.alterConsumerGroupOffsets
     * sends, and what a consumer that assigns its partitions itself sends to commit. Both set offsets no member of
     * the group computed, which is why they are audited; a group member's own commits are not.
     */
    private static boolean isAdminOffsetCommit(ApiKeys api, ApiMessage request) {
        return api == ApiKeys.OFFSET_COMMIT && ((OffsetCommitRequestData) request).generationIdOrMemberEpoch() < 0;
    }

    private static void offsetCommit(OffsetCommitRequestData r, RequestSummary.Builder b) {
        b.resource(Resource.GROUP, r.groupId());
        if (r.generationIdOrMemberEpoch() >= 0) {
            return;
        }
        r.topics().forEach(t -> {
            Map<String, Object> offsets = new LinkedHashMap<>();
            t.partitions().stream().limit(MAX_PARTITIONS).forEach(p -> offsets.put(String.valueOf(p.partitionIndex()), p.committedOffset()));
            b.resource(Resource.TOPIC, Resource.topicName(t.name(), t.topicId()), details("offsets", offsets, "partitions", t.partitions().size()));
        });
    }

    private static void createTopics(CreateTopicsRequestData r, RequestSummary.Builder b) {
        for (CreateTopicsRequestData.CreatableTopic t : r.topics()) {
            Map<String, Object> details = new LinkedHashMap<>();
            details.put("partitions", t.numPartitions());
            details.put("replicationFactor", t.replicationFactor());
            if (!t.assignments().isEmpty()) {
                details.put("assignedPartitions", t.assignments().size());
            }
            if (!t.configs().isEmpty()) {
                List<Map<String, Object>> configs = new ArrayList<>();
                byte topic = org.apache.kafka.common.config.ConfigResource.Type.TOPIC.id();
                t.configs().stream().limit(MAX_CONFIGS).forEach(c -> configs.add(config(topic, c.name(), null, c.value())));
                details.putAll(configDetails(configs, t.configs().size()));
            }
            b.resource(Resource.TOPIC, t.name(), details);
        }
        validateOnly(b, r.validateOnly());
    }

    private static void deleteTopics(DeleteTopicsRequestData r, RequestSummary.Builder b) {
        r.topicNames().forEach(name -> b.resource(Resource.TOPIC, name));
        r.topics().forEach(t -> b.resource(Resource.TOPIC, Resource.topicName(t.name(), t.topicId())));
    }

    private static void validateOnly(RequestSummary.Builder b, boolean validateOnly) {
        if (validateOnly) {
            b.setting("validateOnly", true);
        }
    }

    private static Map<String, Object> config(byte resourceType, String name, String operation, String value) {
        Map<String, Object> c = new LinkedHashMap<>();
        c.put("name", Secrets.text(name));
        if (operation != null) {
            c.put("op", operation);
        }
        // A deletion carries no value worth showing (kafka-clients sends null, others an empty string).
        c.put("value", "DELETE".equals(operation) ? null : Secrets.configValue(resourceType, name, value));
        return c;
    }

    private static Map<String, Object> configDetails(List<Map<String, Object>> configs, int total) {
        return total > configs.size() ? details("configs", configs, "configsOmitted", total - configs.size()) : details("configs", configs);
    }

    private static String operation(byte op) {
        return switch (op) {
            case 0 -> "SET";
            case 1 -> "DELETE";
            case 2 -> "APPEND";
            case 3 -> "SUBTRACT";
            default -> "UNKNOWN(" + op + ")";
        };
    }

    private static String aclResource(byte type, byte patternType, String name) {
        return ResourceType.fromCode(type) + ":" + PatternType.fromCode(patternType) + ":" + (name == null ? "*" : name);
    }

    private static Map<String, Object> acl(String principal, String host, byte operation, byte permission) {
        return details("principal", Secrets.text(principal), "host", Secrets.text(host), "operation", AclOperation.fromCode(operation).name(),
                "permission", AclPermissionType.fromCode(permission).name());
    }

    private static String quotaEntity(List<AlterClientQuotasRequestData.EntityData> entity) {
        StringBuilder name = new StringBuilder();
        entity.stream().limit(MAX_CONFIGS).forEach(e -> name.append(name.isEmpty() ? "" : ",").append(e.entityType()).append('=')
                .append(e.entityName() == null ? "<default>" : e.entityName()));
        return name.toString();
    }

    private static String scram(byte mechanism) {
        return switch (mechanism) {
            case 1 -> "SCRAM-SHA-256";
            case 2 -> "SCRAM-SHA-512";
            default -> "UNKNOWN(" + mechanism + ")";
        };
    }

    /** A details map, in the order given; null values are kept (a config deleted, a quota removed). */
    static Map<String, Object> details(Object... keysAndValues) {
        Map<String, Object> d = new LinkedHashMap<>();
        for (int i = 0; i < keysAndValues.length; i += 2) {
            d.put((String) keysAndValues[i], keysAndValues[i + 1]);
        }
        return d;
    }
}
