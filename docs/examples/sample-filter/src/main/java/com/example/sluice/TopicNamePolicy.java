package com.example.sluice;

import java.util.concurrent.CompletionStage;

import org.apache.kafka.common.errors.PolicyViolationException;
import org.apache.kafka.common.message.CreateTopicsRequestData;
import org.apache.kafka.common.message.RequestHeaderData;

import io.micrometer.core.instrument.Counter;
import io.sluice.proxy.filter.CreateTopicsRequestFilter;
import io.sluice.proxy.filter.Filter;
import io.sluice.proxy.filter.FilterContext;
import io.sluice.proxy.filter.FilterFactory;
import io.sluice.proxy.filter.FilterFactoryContext;
import io.sluice.proxy.filter.RequestFilterResult;

/**
 * Refuses CreateTopics requests that name a topic without the configured prefix, with POLICY_VIOLATION for every
 * topic of the request (one bad name refuses the request, as a broker's CreateTopicPolicy would), and counts the
 * refusals in {@code sample_topic_policy_refusals_total{filter}}.
 *
 * <pre>
 * filterDefinitions:
 *   - name: team-topics
 *     type: TopicNamePolicy
 *     config:
 *       requiredPrefix: team-a.
 * </pre>
 */
public final class TopicNamePolicy implements FilterFactory<TopicNamePolicy.Config, TopicNamePolicy.Policy> {

    /** @param requiredPrefix what every new topic's name must start with */
    public record Config(String requiredPrefix) {
    }

    /** What every connection's filter shares. */
    public record Policy(String requiredPrefix, Counter refusals) {
    }

    @Override
    public Class<Config> configType() {
        return Config.class;
    }

    @Override
    public Policy initialize(FilterFactoryContext context, Config config) {
        if (config.requiredPrefix() == null || config.requiredPrefix().isBlank()) {
            throw new IllegalArgumentException("requiredPrefix: required, e.g. team-a.");
        }
        Counter refusals = Counter.builder("sample.topic.policy.refusals")
                .description("CreateTopics requests refused because a topic name lacks the required prefix")
                .tag("filter", context.filterName())
                .register(context.meterRegistry());
        return new Policy(config.requiredPrefix(), refusals);
    }

    @Override
    public Filter createFilter(FilterFactoryContext context, Policy policy) {
        // A typed interface: only CreateTopics requests are decoded and handed to it, already as CreateTopicsRequestData.
        return new CreateTopicsRequestFilter() {
            @Override
            public CompletionStage<RequestFilterResult> onCreateTopicsRequest(short apiVersion, RequestHeaderData header, CreateTopicsRequestData request,
                                                                              FilterContext context) {
                boolean allowed = request.topics().stream()
                        .allMatch(topic -> topic.name().startsWith(policy.requiredPrefix()));
                if (allowed) {
                    return context.forwardRequest(header, request);
                }
                policy.refusals().increment();
                return context.requestFilterResultBuilder()
                        .errorResponse(header, request, new PolicyViolationException("topic names must start with " + policy.requiredPrefix()))
                        .completed();
            }
        };
    }
}
