package io.sluice.filter.policy;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;

import org.apache.kafka.common.message.CreateTopicsRequestData;
import org.apache.kafka.common.message.CreateTopicsRequestData.CreatableReplicaAssignment;
import org.apache.kafka.common.message.CreateTopicsRequestData.CreatableTopic;
import org.apache.kafka.common.message.CreateTopicsRequestData.CreatableTopicConfig;
import org.apache.kafka.common.message.CreateTopicsResponseData;
import org.apache.kafka.common.message.CreateTopicsResponseData.CreatableTopicConfigs;
import org.apache.kafka.common.message.CreateTopicsResponseData.CreatableTopicResult;
import org.apache.kafka.common.message.RequestHeaderData;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.requests.ApiError;

import io.sluice.proxy.filter.FilterContext;
import io.sluice.proxy.filter.RequestFilterResult;

/**
 * CreateTopics (and its {@code validateOnly} form) under a rule's {@link TopicPolicy}: each topic is judged on its
 * own; the refused ones are answered (POLICY_VIOLATION and a message naming the policy) and never reach the broker,
 * the others go on.
 *
 * <p>What a request leaves to the broker (numPartitions or replicationFactor -1, a judged config key not given) is
 * judged at the value the broker would give it: the filter first asks the broker with a {@code validateOnly} copy of
 * those topics, whose answer (CreateTopics v5+) carries the partition count, replication factor and every config value
 * the topic would get. The broker is the authority on its defaults (in KRaft, the controller's), so a policy judges
 * exactly what would be created; no round trip is made when the request gives everything. A topic the broker itself
 * refuses in that probe is answered with the broker's own error, as the real request would be.</p>
 */
final class TopicCreation {

    /** The first CreateTopics version whose response carries the topic's partitions, replication factor and configs. */
    static final short PROBE_MIN_VERSION = 5;

    private TopicCreation() {
    }

    /** One topic of the request and what was found about it. */
    private static final class Judged {
        final CreatableTopic topic;
        final Judgement judgement;
        final int partitions;
        final int replicationFactor;
        final Set<String> given = new HashSet<>();
        ApiError brokerAnswer;

        Judged(CreatableTopic topic, Judgement judgement, int partitions, int replicationFactor) {
            this.topic = topic;
            this.judgement = judgement;
            this.partitions = partitions;
            this.replicationFactor = replicationFactor;
        }
    }

    static CompletionStage<RequestFilterResult> police(short version, RequestHeaderData header, CreateTopicsRequestData request, Rule rule,
                                                       TopicNames.Bound names, Violations violations, FilterContext context) {
        TopicPolicy policy = rule.topics();
        List<Judged> judged = new ArrayList<>();
        List<Judged> unresolved = new ArrayList<>();
        for (CreatableTopic topic : request.topics()) {
            boolean assigned = !topic.assignments().isEmpty();
            Judged j = new Judged(topic, new Judgement(rule), assigned ? topic.assignments().size() : topic.numPartitions(),
                    assigned ? smallest(topic.assignments()) : topic.replicationFactor());
            judged.add(j);
            policy.checkName(topic.name(), names, j.judgement);
            for (CreatableTopicConfig config : topic.configs()) {
                j.given.add(config.name());
                policy.checkKey(topic.name(), config.name(), j.judgement);
                if (policy.judgedKeys().contains(config.name())) {
                    policy.checkValue(topic.name(), config.name(), config.value(), "", j.judgement);
                }
            }
            // 0 and below -1 are the broker's to refuse (INVALID_PARTITIONS, INVALID_REPLICATION_FACTOR).
            if (j.partitions > 0) {
                policy.checkPartitions(topic.name(), j.partitions, "", j.judgement);
            }
            if (j.replicationFactor > 0) {
                policy.checkReplicationFactor(topic.name(), j.replicationFactor, "", j.judgement);
            }
            boolean leftToTheBroker = j.partitions == -1 && policy.judgesPartitions() || j.replicationFactor == -1 && policy.judgesReplicationFactor()
                    || !j.given.containsAll(policy.judgedKeys());
            if (leftToTheBroker && !j.judgement.refused()) {
                unresolved.add(j);
            }
        }
        if (unresolved.isEmpty()) {
            return CompletableFuture.completedFuture(finish(header, request, judged, violations, context));
        }
        CreateTopicsRequestData probe = new CreateTopicsRequestData().setValidateOnly(true).setTimeoutMs(request.timeoutMs());
        unresolved.forEach(j -> probe.topics().add(j.topic.duplicate()));
        short probeVersion = (short) Math.max(PROBE_MIN_VERSION, version);
        return context.<CreateTopicsResponseData>sendRequest(new RequestHeaderData().setRequestApiVersion(probeVersion), probe)
                .handle((answer, error) -> {
                    for (Judged j : unresolved) {
                        if (error != null) {
                            Throwable cause = error instanceof CompletionException && error.getCause() != null ? error.getCause() : error;
                            j.brokerAnswer = new ApiError(Errors.forException(cause), "the proxy could not learn the broker's defaults for topic "
                                    + TopicPolicy.quoted(j.topic.name()) + " to judge it by its policies: " + cause.getMessage());
                        } else {
                            resolve(j, answer.topics().find(j.topic.name()), policy);
                        }
                    }
                    return finish(header, request, judged, violations, context);
                });
    }

    /** Judges what the request left to the broker at the values the broker's validateOnly answer gives. */
    private static void resolve(Judged j, CreatableTopicResult answer, TopicPolicy policy) {
        String name = j.topic.name();
        if (answer == null) {
            j.brokerAnswer = new ApiError(Errors.UNKNOWN_SERVER_ERROR, "the broker did not answer the proxy's validateOnly CreateTopics for topic "
                    + TopicPolicy.quoted(name));
            return;
        }
        if (answer.errorCode() != Errors.NONE.code()) {
            // What the broker would answer the request itself.
            j.brokerAnswer = new ApiError(Errors.forCode(answer.errorCode()), answer.errorMessage());
            return;
        }
        boolean described = answer.topicConfigErrorCode() == Errors.NONE.code();
        if (j.partitions == -1 && policy.judgesPartitions()) {
            if (described && answer.numPartitions() > 0) {
                policy.checkPartitions(name, answer.numPartitions(), TopicPolicy.BROKER_DEFAULT, j.judgement);
            } else {
                unknownDefault(j, PolicyId.TOPIC_PARTITIONS, "numPartitions");
            }
        }
        if (j.replicationFactor == -1 && policy.judgesReplicationFactor()) {
            if (described && answer.replicationFactor() > 0) {
                policy.checkReplicationFactor(name, answer.replicationFactor(), TopicPolicy.BROKER_DEFAULT, j.judgement);
            } else {
                unknownDefault(j, PolicyId.TOPIC_MIN_REPLICATION_FACTOR, "replicationFactor");
            }
        }
        for (String key : policy.judgedKeys()) {
            if (j.given.contains(key)) {
                continue;
            }
            if (!described) {
                unknownDefault(j, TopicPolicy.MIN_INSYNC_REPLICAS.equals(key) ? PolicyId.TOPIC_MIN_INSYNC_REPLICAS : PolicyId.TOPIC_CONFIGS, key);
                continue;
            }
            CreatableTopicConfigs config = null;
            for (CreatableTopicConfigs c : answer.configs()) {
                if (key.equals(c.name())) {
                    config = c;
                    break;
                }
            }
            policy.checkValue(name, key, config == null ? null : config.value(), TopicPolicy.BROKER_DEFAULT, j.judgement);
        }
    }

    private static void unknownDefault(Judged j, PolicyId policy, String what) {
        j.judgement.violated(policy, Errors.POLICY_VIOLATION, "topic " + TopicPolicy.quoted(j.topic.name()) + " leaves " + what
                + " to the broker, which did not say what its default is (the proxy's broker principal may not describe configs); give it in the request");
    }

    private static RequestFilterResult finish(RequestHeaderData header, CreateTopicsRequestData request, List<Judged> judged, Violations violations,
                                              FilterContext context) {
        RefusedEntries<CreatableTopic> refused = new RefusedEntries<>();
        for (Judged j : judged) {
            violations.report(j.judgement, context, "CreateTopics of " + TopicPolicy.quoted(j.topic.name()));
            if (j.judgement.refused()) {
                refused.refuse(j.topic, new ApiError(j.judgement.refusal().error(), j.judgement.refusal().message()));
            } else if (j.brokerAnswer != null) {
                refused.refuse(j.topic, j.brokerAnswer);
            }
        }
        return refused.result(header, request, request.topics(), new CreateTopicsResponseData(), TopicCreation::addAnswers, context);
    }

    private static void addAnswers(ApiMessage response, List<Map.Entry<CreatableTopic, ApiError>> refused) {
        CreateTopicsResponseData created = (CreateTopicsResponseData) response;
        for (Map.Entry<CreatableTopic, ApiError> r : refused) {
            // As the broker answers a topic it refuses: no id, no partitions, replication factor or configs.
            created.topics().add(new CreatableTopicResult().setName(r.getKey().name())
                    .setErrorCode(r.getValue().error().code()).setErrorMessage(r.getValue().message()));
        }
    }

    private static int smallest(Iterable<CreatableReplicaAssignment> assignments) {
        int smallest = Integer.MAX_VALUE;
        for (CreatableReplicaAssignment a : assignments) {
            smallest = Math.min(smallest, a.brokerIds().size());
        }
        return smallest;
    }
}
