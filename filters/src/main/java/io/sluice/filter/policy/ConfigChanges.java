package io.sluice.filter.policy;

import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;
import java.util.function.Function;
import java.util.function.Supplier;

import org.apache.kafka.clients.admin.AlterConfigOp;
import org.apache.kafka.common.config.ConfigResource;
import org.apache.kafka.common.message.AlterConfigsRequestData;
import org.apache.kafka.common.message.AlterConfigsResponseData;
import org.apache.kafka.common.message.DescribeConfigsRequestData;
import org.apache.kafka.common.message.DescribeConfigsResponseData;
import org.apache.kafka.common.message.IncrementalAlterConfigsRequestData;
import org.apache.kafka.common.message.IncrementalAlterConfigsResponseData;
import org.apache.kafka.common.message.RequestHeaderData;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.requests.ApiError;
import org.apache.kafka.common.requests.DescribeConfigsResponse;

import io.sluice.proxy.filter.FilterContext;
import io.sluice.proxy.filter.RequestFilterResult;

/**
 * AlterConfigs and IncrementalAlterConfigs of topics under a rule's {@link TopicPolicy}; resources of other types
 * (brokers, loggers, groups, client metrics) pass untouched. Each topic resource is judged on its own: its name, the
 * keys the request sets (SET, APPEND, SUBTRACT; DELETE sets nothing, so removing a forbidden key is allowed), and the
 * value each judged key will have afterwards: a SET's value, each element an APPEND adds, and, for a DELETE (or, in
 * the legacy AlterConfigs, which replaces every override of the topic, a judged key the request leaves out), the
 * value the topic falls back to. That fallback is the broker's, read with one DescribeConfigs of those keys with
 * synonyms: the first synonym that is not the topic's own override is what remains when the override goes. A
 * SUBTRACT only removes list elements and is not judged by value.
 */
final class ConfigChanges {

    /** DescribeConfigs v1 is the oldest version a Kafka 4 broker serves, and has synonyms. */
    static final short DESCRIBE_VERSION = 1;
    private static final byte TOPIC = ConfigResource.Type.TOPIC.id();

    private ConfigChanges() {
    }

    /** One change a request makes to a key; {@code op} as AlterConfigOp.OpType. */
    private record Change(String key, AlterConfigOp.OpType op, String value) {
    }

    /** One topic resource of the request and what was found about it. */
    private static final class Judged<E> {
        final E entry;
        final String topic;
        final Judgement judgement;
        final Set<String> resets = new LinkedHashSet<>();
        ApiError brokerAnswer;

        Judged(E entry, String topic, Judgement judgement) {
            this.entry = entry;
            this.topic = topic;
            this.judgement = judgement;
        }
    }

    static CompletionStage<RequestFilterResult> alterConfigs(RequestHeaderData header, AlterConfigsRequestData request, Rule rule, TopicNames.Bound names,
                                                             Violations violations, FilterContext context) {
        return police(new Api<>("AlterConfigs", AlterConfigsRequestData.AlterConfigsResource::resourceType,
                AlterConfigsRequestData.AlterConfigsResource::resourceName,
                resource -> resource.configs().stream().map(c -> new Change(c.name(), AlterConfigOp.OpType.SET, c.value())).toList(), true,
                AlterConfigsResponseData::new, (response, resource, error) -> ((AlterConfigsResponseData) response).responses().add(
                        new AlterConfigsResponseData.AlterConfigsResourceResponse().setResourceType(resource.resourceType())
                                .setResourceName(resource.resourceName()).setErrorCode(error.error().code()).setErrorMessage(error.message()))),
                header, request, request.resources(), rule, names, violations, context);
    }

    static CompletionStage<RequestFilterResult> incrementalAlterConfigs(RequestHeaderData header, IncrementalAlterConfigsRequestData request, Rule rule,
                                                                        TopicNames.Bound names, Violations violations, FilterContext context) {
        return police(new Api<>("IncrementalAlterConfigs", IncrementalAlterConfigsRequestData.AlterConfigsResource::resourceType,
                IncrementalAlterConfigsRequestData.AlterConfigsResource::resourceName,
                resource -> resource.configs().stream().map(c -> new Change(c.name(), op(c.configOperation()), c.value())).toList(), false,
                IncrementalAlterConfigsResponseData::new, (response, resource, error) -> ((IncrementalAlterConfigsResponseData) response).responses().add(
                        new IncrementalAlterConfigsResponseData.AlterConfigsResourceResponse().setResourceType(resource.resourceType())
                                .setResourceName(resource.resourceName()).setErrorCode(error.error().code()).setErrorMessage(error.message()))),
                header, request, request.resources(), rule, names, violations, context);
    }

    /** What differs between the two APIs: their generated resource and response classes, and whether a request replaces every override. */
    private record Api<E>(String name, Function<E, Byte> type, Function<E, String> topic, Function<E, List<Change>> changes, boolean replacesAll,
                          Supplier<ApiMessage> emptyResponse, Answer<E> answer) {
    }

    @FunctionalInterface
    private interface Answer<E> {
        void add(ApiMessage response, E resource, ApiError error);
    }

    private static <E> CompletionStage<RequestFilterResult> police(Api<E> api, RequestHeaderData header, ApiMessage request, Collection<E> resources,
                                                                   Rule rule, TopicNames.Bound names, Violations violations, FilterContext context) {
        List<Judged<E>> judged = new ArrayList<>();
        for (E resource : resources) {
            if (api.type().apply(resource) == TOPIC) {
                judged.add(judge(resource, api.topic().apply(resource), api.changes().apply(resource), api.replacesAll(), rule, names));
            }
        }
        return resolve(judged, rule.topics(), context).thenApply(done -> refusals(judged, violations, context, api.name())
                .result(header, request, resources, api.emptyResponse().get(), (response, answers) -> {
                    for (Map.Entry<E, ApiError> r : answers) {
                        api.answer().add(response, r.getKey(), r.getValue());
                    }
                }, context));
    }

    /** An operation the broker does not know is judged as a SET (the broker refuses it anyway, with INVALID_REQUEST). */
    private static AlterConfigOp.OpType op(byte id) {
        AlterConfigOp.OpType op;
        try {
            op = AlterConfigOp.OpType.forId(id);
        } catch (IllegalArgumentException e) {
            op = null;
        }
        return op == null ? AlterConfigOp.OpType.SET : op;
    }

    /** @param replacesAll the legacy AlterConfigs: every override the request does not give is reset */
    private static <E> Judged<E> judge(E entry, String topic, List<Change> changes, boolean replacesAll, Rule rule, TopicNames.Bound names) {
        TopicPolicy policy = rule.topics();
        Judged<E> j = new Judged<>(entry, topic, new Judgement(rule));
        policy.checkName(topic, names, j.judgement);
        Set<String> set = new LinkedHashSet<>();
        for (Change change : changes) {
            boolean judgedKey = policy.judgedKeys().contains(change.key());
            switch (change.op()) {
                case SET, APPEND -> {
                    set.add(change.key());
                    policy.checkKey(topic, change.key(), j.judgement);
                    if (judgedKey) {
                        policy.checkValue(topic, change.key(), change.value(), "", j.judgement);
                    }
                }
                case SUBTRACT -> {
                    set.add(change.key());
                    policy.checkKey(topic, change.key(), j.judgement);
                }
                case DELETE -> {
                    if (judgedKey) {
                        j.resets.add(change.key());
                    }
                }
            }
        }
        if (replacesAll) {
            for (String key : policy.judgedKeys()) {
                if (!set.contains(key)) {
                    j.resets.add(key);
                }
            }
        }
        j.resets.removeAll(set);
        return j;
    }

    /** Judges the keys that fall back to the broker's values, with one DescribeConfigs for all of them; none when nothing is reset. */
    private static <E> CompletionStage<Void> resolve(List<Judged<E>> judged, TopicPolicy policy, FilterContext context) {
        List<Judged<E>> unresolved = judged.stream().filter(j -> !j.resets.isEmpty() && !j.judgement.refused()).toList();
        if (unresolved.isEmpty()) {
            return CompletableFuture.completedFuture(null);
        }
        DescribeConfigsRequestData describe = new DescribeConfigsRequestData().setIncludeSynonyms(true);
        for (Judged<E> j : unresolved) {
            describe.resources().add(new DescribeConfigsRequestData.DescribeConfigsResource().setResourceType(TOPIC).setResourceName(j.topic)
                    .setConfigurationKeys(new ArrayList<>(j.resets)));
        }
        return context.<DescribeConfigsResponseData>sendRequest(new RequestHeaderData().setRequestApiVersion(DESCRIBE_VERSION), describe)
                .handle((answer, error) -> {
                    for (Judged<E> j : unresolved) {
                        if (error != null) {
                            Throwable cause = error instanceof CompletionException && error.getCause() != null ? error.getCause() : error;
                            j.brokerAnswer = new ApiError(Errors.forException(cause), "the proxy could not learn the broker's values for topic "
                                    + TopicPolicy.quoted(j.topic) + " to judge the change by its policies: " + cause.getMessage());
                        } else {
                            resolve(j, find(answer, j.topic), policy);
                        }
                    }
                    return null;
                });
    }

    private static DescribeConfigsResponseData.DescribeConfigsResult find(DescribeConfigsResponseData answer, String topic) {
        for (DescribeConfigsResponseData.DescribeConfigsResult result : answer.results()) {
            if (result.resourceType() == TOPIC && topic.equals(result.resourceName())) {
                return result;
            }
        }
        return null;
    }

    private static <E> void resolve(Judged<E> j, DescribeConfigsResponseData.DescribeConfigsResult result, TopicPolicy policy) {
        if (result == null) {
            j.brokerAnswer = new ApiError(Errors.UNKNOWN_SERVER_ERROR, "the broker did not describe topic " + TopicPolicy.quoted(j.topic)
                    + " to the proxy, which must judge the change by its policies");
            return;
        }
        if (result.errorCode() != Errors.NONE.code()) {
            // An unknown topic, say: what the broker would answer the change itself.
            j.brokerAnswer = new ApiError(Errors.forCode(result.errorCode()), result.errorMessage());
            return;
        }
        for (String key : j.resets) {
            DescribeConfigsResponseData.DescribeConfigsResourceResult config = null;
            for (DescribeConfigsResponseData.DescribeConfigsResourceResult c : result.configs()) {
                if (key.equals(c.name())) {
                    config = c;
                    break;
                }
            }
            Fallback fallback = fallback(config);
            PolicyId policyId = TopicPolicy.MIN_INSYNC_REPLICAS.equals(key) ? PolicyId.TOPIC_MIN_INSYNC_REPLICAS : PolicyId.TOPIC_CONFIGS;
            if (!fallback.known()) {
                j.judgement.violated(policyId, Errors.POLICY_VIOLATION, "topic " + TopicPolicy.quoted(j.topic) + ": the change resets " + key
                        + ", and the broker did not say what it would fall back to");
            } else {
                policy.checkValue(j.topic, key, fallback.value(), TopicPolicy.BROKER_DEFAULT, j.judgement);
            }
        }
    }

    /** The value a key falls back to when the topic's override goes; {@code known} false when the broker did not say. */
    private record Fallback(boolean known, String value) {
    }

    private static Fallback fallback(DescribeConfigsResponseData.DescribeConfigsResourceResult config) {
        if (config == null) {
            return new Fallback(false, null);
        }
        byte topicOverride = DescribeConfigsResponse.ConfigSource.TOPIC_CONFIG.id();
        for (DescribeConfigsResponseData.DescribeConfigsSynonym synonym : config.synonyms()) {
            if (synonym.source() != topicOverride) {
                return new Fallback(true, synonym.value());
            }
        }
        if (config.synonyms().isEmpty() && config.configSource() != topicOverride) {
            return new Fallback(true, config.value());
        }
        return new Fallback(false, null);
    }

    private static <E> RefusedEntries<E> refusals(List<Judged<E>> judged, Violations violations, FilterContext context, String api) {
        RefusedEntries<E> refused = new RefusedEntries<>();
        for (Judged<E> j : judged) {
            violations.report(j.judgement, context, api + " of topic " + TopicPolicy.quoted(j.topic));
            if (j.judgement.refused()) {
                refused.refuse(j.entry, new ApiError(j.judgement.refusal().error(), j.judgement.refusal().message()));
            } else if (j.brokerAnswer != null) {
                refused.refuse(j.entry, j.brokerAnswer);
            }
        }
        return refused;
    }
}
