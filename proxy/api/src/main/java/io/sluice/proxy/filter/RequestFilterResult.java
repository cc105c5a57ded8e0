package io.sluice.proxy.filter;

import org.apache.kafka.common.message.RequestHeaderData;
import org.apache.kafka.common.message.ResponseHeaderData;
import org.apache.kafka.common.protocol.ApiMessage;

/**
 * What a request filter decided. Exactly one of: forward {@link #header()}/{@link #message()} towards the
 * broker; answer the client with {@link #shortCircuitResponse()} instead; drop the request. Any of them may
 * also close the connection (after a short-circuit response has been written).
 */
public interface RequestFilterResult {

    /** The request header to forward; null unless forwarding. */
    RequestHeaderData header();

    /** The request to forward; null unless forwarding. */
    ApiMessage message();

    /** The response to answer with instead of forwarding; null unless short-circuiting. */
    ApiMessage shortCircuitResponse();

    /** The header for the short-circuit response; may be null (the proxy fills in the correlation id). */
    ResponseHeaderData shortCircuitResponseHeader();

    /** The request goes nowhere and the client gets no answer (only sensible for requests without one). */
    boolean drop();

    boolean closeConnection();

    /** What to run on the forwarded request's response at this filter's place; null for none. */
    default ResponseHook responseHook() {
        return null;
    }

    /** What to run with the size of the forwarded request's response as it arrives; null for none. */
    default ResponseSizeHook responseSizeHook() {
        return null;
    }
}
