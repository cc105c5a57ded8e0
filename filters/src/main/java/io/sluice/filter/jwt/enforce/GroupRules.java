package io.sluice.filter.jwt.enforce;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;

import org.apache.kafka.clients.consumer.internals.ConsumerProtocol;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.errors.ApiException;
import org.apache.kafka.common.errors.GroupAuthorizationException;
import org.apache.kafka.common.errors.TopicAuthorizationException;
import org.apache.kafka.common.errors.TransactionalIdAuthorizationException;
import org.apache.kafka.common.message.ConsumerGroupDescribeResponseData;
import org.apache.kafka.common.message.ConsumerGroupHeartbeatRequestData;
import org.apache.kafka.common.message.DescribeGroupsResponseData;
import org.apache.kafka.common.message.FindCoordinatorRequestData;
import org.apache.kafka.common.message.FindCoordinatorResponseData;
import org.apache.kafka.common.message.JoinGroupRequestData;
import org.apache.kafka.common.message.ListGroupsResponseData;
import org.apache.kafka.common.message.OffsetCommitRequestData;
import org.apache.kafka.common.message.OffsetFetchRequestData;
import org.apache.kafka.common.message.OffsetFetchResponseData;
import org.apache.kafka.common.message.ShareGroupDescribeResponseData;
import org.apache.kafka.common.message.StreamsGroupDescribeResponseData;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.requests.FindCoordinatorRequest;

import io.sluice.proxy.filter.FilterContext;

/**
 * Authorization of consumer (and share and streams) group APIs. Joining, syncing, heartbeats, leaving and
 * committing need the group; committing also needs read on every topic committed. Fetching offsets and
 * describing or listing groups are answered by the broker and then cleaned of groups and topics the
 * principal may not see.
 */
final class GroupRules {

    private static final short GROUP_DENIED = Errors.GROUP_AUTHORIZATION_FAILED.code();
    private static final short TOPIC_DENIED = Errors.TOPIC_AUTHORIZATION_FAILED.code();
    private static final String TOPICS_HIDDEN = "the group uses topics this principal may not describe";
    /** FindCoordinator v4 batched the keys; before it a request names one key and its response has no key. */
    private static final short FIND_COORDINATOR_BATCHED = 4;
    /** OffsetFetch v8 batched the groups. */
    private static final short OFFSET_FETCH_BATCHED = 8;
    /** OffsetFetch v2 added the top-level error code. */
    private static final short OFFSET_FETCH_TOP_LEVEL_ERROR = 2;
    /** DescribeGroups v6 added the group's error message. */
    private static final short DESCRIBE_GROUPS_ERROR_MESSAGE = 6;

    private GroupRules() {
    }

    /** SyncGroup, Heartbeat, LeaveGroup: the whole request is about one group. */
    static Decision member(String groupId, Access access) {
        return access.group(groupId) ? Decision.FORWARD : denyGroup(groupId);
    }

    static Decision consumerGroupHeartbeat(ConsumerGroupHeartbeatRequestData request, Access access) {
        if (!access.group(request.groupId())) {
            return denyGroup(request.groupId());
        }
        // A regex (KIP-848 subscribedTopicRegex, RE2J) is resolved by the broker, as the proxy's principal, against
        // every topic: the group would be assigned topics this principal may not see, and ConsumerGroupDescribe would
        // name them. Consumers that subscribe with a java.util.regex.Pattern resolve it themselves, from the filtered
        // Metadata, and send names: only SubscriptionPattern is refused.
        if (request.subscribedTopicRegex() != null && !request.subscribedTopicRegex().isEmpty()) {
            return Decision.deny(new TopicAuthorizationException("broker-side regex subscriptions (subscribedTopicRegex) are not "
                    + "permitted through JwtAuth: subscribe by topic names or with a java.util.regex.Pattern"));
        }
        // Subscribing by name to a topic one may not describe fails, as with the broker's own authorizer.
        if (request.subscribedTopicNames() != null) {
            for (String topic : request.subscribedTopicNames()) {
                if (!access.describe(topic)) {
                    return Decision.deny(new TopicAuthorizationException("not permitted to subscribe to topic " + topic));
                }
            }
        }
        return Decision.FORWARD;
    }

    static CompletionStage<Decision> offsetCommit(OffsetCommitRequestData request, Access access, FilterContext context) {
        if (!access.group(request.groupId())) {
            return CompletableFuture.completedFuture(denyGroup(request.groupId()));
        }
        List<Uuid> ids = request.topics().stream().map(OffsetCommitRequestData.OffsetCommitRequestTopic::topicId).toList();
        return TopicIds.names(context, ids).thenApply(names -> {
            for (OffsetCommitRequestData.OffsetCommitRequestTopic topic : request.topics()) {
                String name = TopicIds.name(topic.name(), topic.topicId(), names);
                if (name == null || !access.topic(name).read().any()) {
                    return Decision.deny(new TopicAuthorizationException("not permitted to commit offsets of topic " + (name == null ? topic.topicId() : name)));
                }
            }
            return Decision.FORWARD;
        });
    }

    static Decision findCoordinator(short version, FindCoordinatorRequestData request, Access access) {
        byte keyType = request.keyType();
        if (version < FIND_COORDINATOR_BATCHED) {
            return allowedKey(keyType, request.key(), access) ? Decision.FORWARD : Decision.deny(keyError(keyType, request.key()));
        }
        return Decision.forward(response -> {
            for (FindCoordinatorResponseData.Coordinator c : ((FindCoordinatorResponseData) response).coordinators()) {
                if (!allowedKey(keyType, c.key(), access)) {
                    Errors error = Errors.forException(keyError(keyType, c.key()));
                    c.setErrorCode(error.code()).setErrorMessage(error.message()).setNodeId(-1).setHost("").setPort(-1);
                }
            }
            return CompletableFuture.completedFuture(null);
        });
    }

    private static boolean allowedKey(byte keyType, String key, Access access) {
        return keyType == FindCoordinatorRequest.CoordinatorType.TRANSACTION.id() ? access.transactionalId(key) : access.group(key);
    }

    private static ApiException keyError(byte keyType, String key) {
        return keyType == FindCoordinatorRequest.CoordinatorType.TRANSACTION.id()
                ? new TransactionalIdAuthorizationException("not permitted to use transactional id " + key)
                : new GroupAuthorizationException("not permitted to use group " + key);
    }

    /**
     * Offsets of groups the principal may not use are replaced by GROUP_AUTHORIZATION_FAILED; offsets of topics
     * it may not describe are replaced by TOPIC_AUTHORIZATION_FAILED when the topic was asked for, and left out
     * when all of the group's topics were.
     */
    static Decision offsetFetch(short version, OffsetFetchRequestData request, Access access, FilterContext context) {
        if (version < OFFSET_FETCH_BATCHED) {
            boolean allTopics = request.topics() == null;
            String groupId = request.groupId();
            return Decision.forward(response -> {
                OffsetFetchResponseData fetch = (OffsetFetchResponseData) response;
                if (!access.group(groupId)) {
                    denyGroup(version, fetch);
                } else {
                    fetch.topics().removeIf(t -> !access.describe(t.name()) && allTopics);
                    fetch.topics().stream().filter(t -> !access.describe(t.name()))
                            .forEach(t -> t.partitions().forEach(p -> p.setErrorCode(TOPIC_DENIED).setCommittedOffset(-1).setMetadata("")));
                }
                return CompletableFuture.completedFuture(null);
            });
        }
        // v8+ may name a group more than once, and the broker answers every entry on its own, one with all the
        // group's topics (topics null) and another with only those named. Response entries are told apart by group
        // id alone, so the rule is per group id: a hidden topic is answered TOPIC_AUTHORIZATION_FAILED only when
        // every entry of its group named its topics; otherwise it is left out of all of them (an entry that named
        // it gets nothing for it: an error there would place it in the group's all-topics answer).
        Set<String> topicsAlwaysNamed = new HashSet<>();
        Set<String> allTopicsAsked = new HashSet<>();
        for (OffsetFetchRequestData.OffsetFetchRequestGroup g : request.groups()) {
            (g.topics() == null ? allTopicsAsked : topicsAlwaysNamed).add(g.groupId());
        }
        topicsAlwaysNamed.removeAll(allTopicsAsked);
        return Decision.forward(response -> {
            OffsetFetchResponseData fetch = (OffsetFetchResponseData) response;
            List<Uuid> ids = new ArrayList<>();
            fetch.groups().forEach(g -> g.topics().forEach(t -> ids.add(t.topicId())));
            return TopicIds.names(context, ids).thenAccept(names -> {
                for (OffsetFetchResponseData.OffsetFetchResponseGroup group : fetch.groups()) {
                    if (!access.group(group.groupId())) {
                        group.setErrorCode(GROUP_DENIED);
                        group.topics().clear();
                        continue;
                    }
                    boolean allTopics = !topicsAlwaysNamed.contains(group.groupId());
                    group.topics().removeIf(t -> allTopics && !access.describe(TopicIds.name(t.name(), t.topicId(), names)));
                    for (OffsetFetchResponseData.OffsetFetchResponseTopics topic : group.topics()) {
                        if (!access.describe(TopicIds.name(topic.name(), topic.topicId(), names))) {
                            topic.partitions().forEach(p -> p.setErrorCode(TOPIC_DENIED).setCommittedOffset(-1).setMetadata(""));
                        }
                    }
                }
            });
        });
    }

    /**
     * A forbidden group in OffsetFetch v1-v7. v2 added the top-level error code; v1 has none (the field is dropped
     * when written, silently), so there, as a broker answers, every partition asked for carries the error.
     */
    private static void denyGroup(short version, OffsetFetchResponseData fetch) {
        if (version < OFFSET_FETCH_TOP_LEVEL_ERROR) {
            fetch.topics().forEach(t -> t.partitions().forEach(p -> p.setErrorCode(GROUP_DENIED).setCommittedOffset(-1)
                    .setCommittedLeaderEpoch(-1).setMetadata("")));
        } else {
            fetch.setErrorCode(GROUP_DENIED);
            fetch.topics().clear();
        }
    }

    /** JoinGroup: the group; a consumer group's leader also gets its members' subscriptions cut to what it may see. */
    static Decision joinGroup(JoinGroupRequestData request, Access access) {
        if (!access.group(request.groupId())) {
            return denyGroup(request.groupId());
        }
        return ConsumerProtocol.PROTOCOL_TYPE.equals(request.protocolType()) ? Decision.forward(LeaderSubscriptions.visibleOnly(access)) : Decision.FORWARD;
    }

    /** DescribeGroups v6 added the per-group error message: before it the field cannot be written, and a set one fails the response. */
    static Decision describeGroups(short version, Access access) {
        String topicsHidden = version >= DESCRIBE_GROUPS_ERROR_MESSAGE ? TOPICS_HIDDEN : null;
        return Decision.forward(response -> {
            for (DescribeGroupsResponseData.DescribedGroup g : ((DescribeGroupsResponseData) response).groups()) {
                if (!access.group(g.groupId())) {
                    g.setErrorCode(GROUP_DENIED).setErrorMessage(null).setGroupState("").setProtocolType("").setProtocolData("");
                    g.members().clear();
                } else if (GroupTopics.hidden(g, access) != null) {
                    g.setErrorCode(TOPIC_DENIED).setErrorMessage(topicsHidden).setGroupState("").setProtocolType("").setProtocolData("");
                    g.members().clear();
                }
            }
            return CompletableFuture.completedFuture(null);
        });
    }

    static Decision consumerGroupDescribe(Access access) {
        return Decision.forward(response -> {
            for (ConsumerGroupDescribeResponseData.DescribedGroup g : ((ConsumerGroupDescribeResponseData) response).groups()) {
                if (!access.group(g.groupId())) {
                    g.setErrorCode(GROUP_DENIED).setErrorMessage(null).setGroupState("").setAssignorName("");
                    g.members().clear();
                } else if (GroupTopics.hidden(g, access) != null) {
                    g.setErrorCode(TOPIC_DENIED).setErrorMessage(TOPICS_HIDDEN).setGroupState("").setAssignorName("");
                    g.members().clear();
                }
            }
            return CompletableFuture.completedFuture(null);
        });
    }

    static Decision shareGroupDescribe(Access access) {
        return Decision.forward(response -> {
            for (ShareGroupDescribeResponseData.DescribedGroup g : ((ShareGroupDescribeResponseData) response).groups()) {
                if (!access.group(g.groupId())) {
                    g.setErrorCode(GROUP_DENIED).setErrorMessage(null).setGroupState("").setAssignorName("");
                    g.members().clear();
                } else if (GroupTopics.hidden(g, access) != null) {
                    g.setErrorCode(TOPIC_DENIED).setErrorMessage(TOPICS_HIDDEN).setGroupState("").setAssignorName("");
                    g.members().clear();
                }
            }
            return CompletableFuture.completedFuture(null);
        });
    }

    static Decision streamsGroupDescribe(Access access) {
        return Decision.forward(response -> {
            for (StreamsGroupDescribeResponseData.DescribedGroup g : ((StreamsGroupDescribeResponseData) response).groups()) {
                if (!access.group(g.groupId())) {
                    g.setErrorCode(GROUP_DENIED).setErrorMessage(null).setGroupState("").setTopology(null);
                    g.members().clear();
                } else if (GroupTopics.hidden(g, access) != null) {
                    g.setErrorCode(TOPIC_DENIED).setErrorMessage(TOPICS_HIDDEN).setGroupState("").setTopology(null);
                    g.members().clear();
                }
            }
            return CompletableFuture.completedFuture(null);
        });
    }

    static Decision listGroups(Access access) {
        return Decision.forward(response -> {
            ((ListGroupsResponseData) response).groups().removeIf(g -> !access.group(g.groupId()));
            return CompletableFuture.completedFuture(null);
        });
    }

    private static Decision denyGroup(String groupId) {
        return Decision.deny(new GroupAuthorizationException("not permitted to use group " + groupId));
    }
}
