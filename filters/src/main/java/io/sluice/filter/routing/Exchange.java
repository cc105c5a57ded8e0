package io.sluice.filter.routing;

import java.util.function.Consumer;

import org.apache.kafka.common.message.RequestHeaderData;
import org.apache.kafka.common.protocol.ApiMessage;

import io.sluice.proxy.filter.FilterContext;
import io.sluice.proxy.filter.RequestFilterResult;
import io.sluice.proxy.filter.ResponseHook;

/** One request being routed: how to forward it (with the rewrite its response needs) or answer it. */
record Exchange(RequestHeaderData header, FilterContext context) {

    short version() {
        return header.requestApiVersion();
    }

    RequestFilterResult forward(ApiMessage request) {
        return context.requestFilterResultBuilder().forward(header, request).build();
    }

    /** Forwards {@code request}, and changes its response with {@code rewrite} (a synchronous one) on the way back. */
    RequestFilterResult forward(ApiMessage request, Consumer<ApiMessage> rewrite) {
        return context.requestFilterResultBuilder().forward(header, request).withResponseHook(ResponseHook.of(rewrite)).build();
    }

    RequestFilterResult respond(ApiMessage response) {
        return context.requestFilterResultBuilder().shortCircuitResponse(response).build();
    }
}
