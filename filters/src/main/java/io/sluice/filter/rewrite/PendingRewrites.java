package io.sluice.filter.rewrite;

import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.CompletionStage;

import org.apache.kafka.common.message.ResponseHeaderData;
import org.apache.kafka.common.protocol.ApiMessage;

import io.sluice.proxy.filter.FilterContext;
import io.sluice.proxy.filter.ResponseFilterResult;

/**
 * The response rewrites one connection's filter owes, by the client's correlation id. Read the id when the
 * request arrives: the proxy replaces it with its own once the request is forwarded, and puts the client's
 * back on the response. One instance per filter instance (so per connection, on its event loop).
 */
public final class PendingRewrites {

    private final Map<Integer, ResponseRewrite> byCorrelationId = new HashMap<>();

    /** Applies {@code rewrite} to the response of the request with this (client) correlation id. */
    public void expect(int correlationId, ResponseRewrite rewrite) {
        byCorrelationId.put(correlationId, rewrite);
    }

    /** Applies the rewrite owed for this response, if any, and forwards it. */
    public CompletionStage<ResponseFilterResult> forward(ResponseHeaderData header, ApiMessage response, FilterContext context) {
        ResponseRewrite rewrite = byCorrelationId.remove(header.correlationId());
        if (rewrite == null) {
            return context.forwardResponse(header, response);
        }
        return rewrite.apply(response).thenApply(done -> context.responseFilterResultBuilder().forward(header, response).build());
    }
}
