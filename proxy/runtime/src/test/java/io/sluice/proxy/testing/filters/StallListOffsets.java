package io.sluice.proxy.testing.filters;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;

import org.apache.kafka.common.message.RequestHeaderData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.ApiMessage;

import io.sluice.proxy.filter.Filter;
import io.sluice.proxy.filter.FilterContext;
import io.sluice.proxy.filter.FilterFactoryContext;
import io.sluice.proxy.filter.RequestFilter;
import io.sluice.proxy.filter.RequestFilterResult;

/** Test filter that never completes ListOffsets, to exercise the filter timeout. */
public final class StallListOffsets extends NoConfigFilterFactory {

    @Override
    public Filter createFilter(FilterFactoryContext context, Void data) {
        return new RequestFilter() {
            @Override
            public boolean shouldHandleRequest(ApiKeys apiKey, short apiVersion) {
                return apiKey == ApiKeys.LIST_OFFSETS;
            }

            @Override
            public CompletionStage<RequestFilterResult> onRequest(ApiKeys apiKey, short apiVersion, RequestHeaderData header, ApiMessage request, FilterContext ctx) {
                return new CompletableFuture<>();
            }
        };
    }
}
