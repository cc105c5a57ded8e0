package io.sluice.proxy.testing.filters;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.TimeUnit;

import org.apache.kafka.common.message.ResponseHeaderData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.ApiMessage;

import io.sluice.proxy.filter.Filter;
import io.sluice.proxy.filter.FilterContext;
import io.sluice.proxy.filter.FilterFactory;
import io.sluice.proxy.filter.FilterFactoryContext;
import io.sluice.proxy.filter.ResponseFilter;
import io.sluice.proxy.filter.ResponseFilterResult;

/**
 * Test filter that holds ListOffsets responses, to exercise the filter timeout on the response path: forever, or
 * when {@code completeAfter} is set, until long after the timeout, when it forwards the response after all.
 */
public final class StallListOffsetsResponses implements FilterFactory<StallListOffsetsResponses.Config, StallListOffsetsResponses.Config> {

    /** @param completeAfter when the held response is forwarded after all; null holds it forever */
    public record Config(Duration completeAfter) {
    }

    @Override
    public Class<Config> configType() {
        return Config.class;
    }

    @Override
    public Config initialize(FilterFactoryContext context, Config config) {
        return config == null ? new Config(null) : config;
    }

    @Override
    public Filter createFilter(FilterFactoryContext context, Config config) {
        return new ResponseFilter() {
            @Override
            public boolean shouldHandleResponse(ApiKeys apiKey, short apiVersion) {
                return apiKey == ApiKeys.LIST_OFFSETS;
            }

            @Override
            public CompletionStage<ResponseFilterResult> onResponse(ApiKeys apiKey, short apiVersion, ResponseHeaderData header, ApiMessage response,
                                                                    FilterContext ctx) {
                if (config.completeAfter() == null) {
                    return new CompletableFuture<>();
                }
                return CompletableFuture.supplyAsync(() -> null,
                                CompletableFuture.delayedExecutor(config.completeAfter().toMillis(), TimeUnit.MILLISECONDS))
                        .thenCompose(ignored -> ctx.forwardResponse(header, response));
            }
        };
    }
}
