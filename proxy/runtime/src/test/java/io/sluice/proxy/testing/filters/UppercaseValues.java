package io.sluice.proxy.testing.filters;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.CompletionStage;

import org.apache.kafka.common.message.ProduceRequestData;
import org.apache.kafka.common.message.RequestHeaderData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.record.SimpleRecord;

import io.sluice.proxy.filter.Filter;
import io.sluice.proxy.filter.FilterContext;
import io.sluice.proxy.filter.FilterFactoryContext;
import io.sluice.proxy.filter.RequestFilter;
import io.sluice.proxy.filter.RequestFilterResult;

/** Test filter: upper-cases every produced value, asynchronously (completes on another thread). */
public final class UppercaseValues extends NoConfigFilterFactory {

    @Override
    public Filter createFilter(FilterFactoryContext context, Void data) {
        return new RequestFilter() {
            @Override
            public boolean shouldHandleRequest(ApiKeys apiKey, short apiVersion) {
                return apiKey == ApiKeys.PRODUCE;
            }

            @Override
            public CompletionStage<RequestFilterResult> onRequest(ApiKeys apiKey, short apiVersion, RequestHeaderData header, ApiMessage request, FilterContext ctx) {
                return java.util.concurrent.CompletableFuture.supplyAsync(() -> {
                    RecordRewriter.rewrite((ProduceRequestData) request, r -> new SimpleRecord(r.timestamp(), r.key(), upper(r.value()), r.headers()));
                    return ctx.requestFilterResultBuilder().forward(header, request).build();
                });
            }
        };
    }

    private static ByteBuffer upper(ByteBuffer value) {
        if (value == null) {
            return null;
        }
        String s = StandardCharsets.UTF_8.decode(value.duplicate()).toString();
        return ByteBuffer.wrap(s.toUpperCase(java.util.Locale.ROOT).getBytes(StandardCharsets.UTF_8));
    }
}
