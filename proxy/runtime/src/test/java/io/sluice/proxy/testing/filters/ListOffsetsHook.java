package io.sluice.proxy.testing.filters;

import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.function.LongUnaryOperator;

import org.apache.kafka.common.message.ListOffsetsResponseData;
import org.apache.kafka.common.message.RequestHeaderData;
import org.apache.kafka.common.message.ResponseHeaderData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.ApiMessage;

import io.sluice.proxy.filter.Filter;
import io.sluice.proxy.filter.FilterContext;
import io.sluice.proxy.filter.FilterFactory;
import io.sluice.proxy.filter.FilterFactoryContext;
import io.sluice.proxy.filter.RequestFilter;
import io.sluice.proxy.filter.RequestFilterResult;
import io.sluice.proxy.filter.ResponseFilter;
import io.sluice.proxy.filter.ResponseFilterResult;
import io.sluice.proxy.filter.ResponseHook;

/**
 * Test filter that attaches a response hook to every ListOffsets request it forwards. The hook adds 1000 to every
 * offset ({@code mode: add}), fails ({@code fail}) or never completes ({@code never}). With {@code doubleOnResponse} the
 * filter is a response filter too and doubles every ListOffsets offset in its own onResponse, so the result shows
 * which ran first: (o + 1000) * 2 when the hook does.
 */
public final class ListOffsetsHook implements FilterFactory<ListOffsetsHook.Config, ListOffsetsHook.Config> {

    public static final long ADDED = 1000;

    /** @param mode add, fail or never; @param doubleOnResponse whether the filter's own onResponse doubles offsets */
    public record Config(String mode, boolean doubleOnResponse) {
    }

    @Override
    public Class<Config> configType() {
        return Config.class;
    }

    @Override
    public Config initialize(FilterFactoryContext context, Config config) {
        Config c = config == null || config.mode() == null ? new Config("add", config != null && config.doubleOnResponse()) : config;
        if (!Set.of("add", "fail", "never").contains(c.mode())) {
            throw new IllegalArgumentException("mode: add, fail or never");
        }
        return c;
    }

    @Override
    public Filter createFilter(FilterFactoryContext context, Config config) {
        RequestFilter hooking = new RequestFilter() {
            @Override
            public boolean shouldHandleRequest(ApiKeys apiKey, short apiVersion) {
                return apiKey == ApiKeys.LIST_OFFSETS;
            }

            @Override
            public CompletionStage<RequestFilterResult> onRequest(ApiKeys apiKey, short apiVersion, RequestHeaderData header, ApiMessage request,
                                                                  FilterContext ctx) {
                return ctx.requestFilterResultBuilder().forward(header, request).withResponseHook(hook(config.mode())).completed();
            }
        };
        if (!config.doubleOnResponse()) {
            return hooking;
        }
        return new Both(hooking);
    }

    private static ResponseHook hook(String mode) {
        return switch (mode) {
            case "fail" -> response -> CompletableFuture.failedFuture(new IllegalStateException("hook failed on purpose"));
            case "never" -> response -> new CompletableFuture<>();
            default -> ResponseHook.of(response -> changeOffsets(response, o -> o + ADDED));
        };
    }

    static void changeOffsets(ApiMessage response, LongUnaryOperator change) {
        for (ListOffsetsResponseData.ListOffsetsTopicResponse topic : ((ListOffsetsResponseData) response).topics()) {
            for (ListOffsetsResponseData.ListOffsetsPartitionResponse partition : topic.partitions()) {
                partition.setOffset(change.applyAsLong(partition.offset()));
            }
        }
    }

    private record Both(RequestFilter hooking) implements RequestFilter, ResponseFilter {

        @Override
        public boolean shouldHandleRequest(ApiKeys apiKey, short apiVersion) {
            return hooking.shouldHandleRequest(apiKey, apiVersion);
        }

        @Override
        public CompletionStage<RequestFilterResult> onRequest(ApiKeys apiKey, short apiVersion, RequestHeaderData header, ApiMessage request,
                                                              FilterContext ctx) {
            return hooking.onRequest(apiKey, apiVersion, header, request, ctx);
        }

        @Override
        public boolean shouldHandleResponse(ApiKeys apiKey, short apiVersion) {
            return apiKey == ApiKeys.LIST_OFFSETS;
        }

        @Override
        public CompletionStage<ResponseFilterResult> onResponse(ApiKeys apiKey, short apiVersion, ResponseHeaderData header, ApiMessage response,
                                                                FilterContext ctx) {
            changeOffsets(response, o -> o * 2);
            return ctx.forwardResponse(header, response);
        }
    }
}
