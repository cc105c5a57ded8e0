package io.sluice.proxy.testing.filters;

import java.util.concurrent.CompletionStage;

import org.apache.kafka.common.message.ProduceRequestData;
import org.apache.kafka.common.message.RequestHeaderData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.ApiMessage;

import io.sluice.proxy.filter.Filter;
import io.sluice.proxy.filter.FilterContext;
import io.sluice.proxy.filter.FilterFactoryContext;
import io.sluice.proxy.filter.ProduceRequestFilter;
import io.sluice.proxy.filter.RequestFilter;
import io.sluice.proxy.filter.RequestFilterResult;

/** Test filter that wrongly implements both the generic RequestFilter and a typed request interface: the proxy must refuse it. */
public final class MixedTypedAndGeneric extends NoConfigFilterFactory {

    @Override
    public Filter createFilter(FilterFactoryContext context, Void data) {
        return new Mixed();
    }

    private static final class Mixed implements RequestFilter, ProduceRequestFilter {

        @Override
        public CompletionStage<RequestFilterResult> onRequest(ApiKeys apiKey, short apiVersion, RequestHeaderData header, ApiMessage request,
                                                              FilterContext context) {
            return context.forwardRequest(header, request);
        }

        @Override
        public CompletionStage<RequestFilterResult> onProduceRequest(short apiVersion, RequestHeaderData header, ProduceRequestData request,
                                                                     FilterContext context) {
            return context.forwardRequest(header, request);
        }
    }
}
