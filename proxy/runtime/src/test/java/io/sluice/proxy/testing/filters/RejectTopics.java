package io.sluice.proxy.testing.filters;

import java.util.List;
import java.util.concurrent.CompletionStage;

import org.apache.kafka.common.errors.TopicAuthorizationException;
import org.apache.kafka.common.message.ProduceRequestData;
import org.apache.kafka.common.message.RequestHeaderData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.ApiMessage;

import io.sluice.proxy.filter.Filter;
import io.sluice.proxy.filter.FilterContext;
import io.sluice.proxy.filter.FilterFactory;
import io.sluice.proxy.filter.FilterFactoryContext;
import io.sluice.proxy.filter.RequestFilter;
import io.sluice.proxy.filter.RequestFilterResult;

/** Test filter: short-circuits Produce to topics with the configured prefix with TOPIC_AUTHORIZATION_FAILED. */
public final class RejectTopics implements FilterFactory<RejectTopics.Config, RejectTopics.Config> {

    public record Config(String prefix) {
    }

    @Override
    public Class<Config> configType() {
        return Config.class;
    }

    @Override
    public Config initialize(FilterFactoryContext context, Config config) {
        if (config == null || config.prefix() == null || config.prefix().isEmpty()) {
            throw new IllegalArgumentException("prefix: required");
        }
        return config;
    }

    @Override
    public Filter createFilter(FilterFactoryContext context, Config config) {
        return new RequestFilter() {
            @Override
            public boolean shouldHandleRequest(ApiKeys apiKey, short apiVersion) {
                return apiKey == ApiKeys.PRODUCE;
            }

            @Override
            public CompletionStage<RequestFilterResult> onRequest(ApiKeys apiKey, short apiVersion, RequestHeaderData header, ApiMessage request, FilterContext ctx) {
                ProduceRequestData produce = (ProduceRequestData) request;
                List<org.apache.kafka.common.Uuid> ids = produce.topicData().stream().map(ProduceRequestData.TopicProduceData::topicId).toList();
                return ctx.topicNames(ids).thenCompose(names -> {
                    boolean forbidden = produce.topicData().stream()
                            .map(t -> t.name() != null && !t.name().isEmpty() ? t.name() : names.getOrDefault(t.topicId(), ""))
                            .anyMatch(n -> n.startsWith(config.prefix()));
                    if (forbidden) {
                        return ctx.requestFilterResultBuilder()
                                .errorResponse(header, request, new TopicAuthorizationException("topic starts with " + config.prefix()))
                                .completed();
                    }
                    return ctx.forwardRequest(header, request);
                });
            }
        };
    }
}
