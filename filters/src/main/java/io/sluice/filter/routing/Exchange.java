package io.sluice.filter.routing;

import java.util.concurrent.CompletableFuture;
import java.util.function.Consumer;

import org.apache.kafka.common.message.RequestHeaderData;
import org.apache.kafka.common.protocol.ApiMessage;

import io.sluice.filter.rewrite.PendingRewrites;
import io.sluice.filter.rewrite.ResponseRewrite;
import io.sluice.proxy.filter.FilterContext;
import io.sluice.proxy.filter.RequestFilterResult;

/** One request being routed: how to forward it (with the rewrite its response needs) or answer it. */
record Exchange(int correlationId, RequestHeaderData header, FilterContext context, PendingRewrites rewrites) {

    short version() {
        return header.requestApiVersion();
    }

    RequestFilterResult forward(ApiMessage request) {
        return context.requestFilterResultBuilder().forward(header, request).build();
    }

    /** Forwards {@code request}, and changes its response with {@code rewrite} (a synchronous one) on the way back. */
    RequestFilterResult forward(ApiMessage request, Consumer<ApiMessage> rewrite) {
        ResponseRewrite async = response -> {
            rewrite.accept(response);
            return CompletableFuture.completedFuture(null);
        };
        rewrites.expect(correlationId, async);
        return forward(request);
    }

    RequestFilterResult respond(ApiMessage response) {
        return context.requestFilterResultBuilder().shortCircuitResponse(response).build();
    }
}
