package io.sluice.proxy.filter;

import java.util.concurrent.CompletionStage;

import org.apache.kafka.common.message.RequestHeaderData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.ApiMessage;

/**
 * A filter that sees requests on their way from the client to the broker.
 *
 * <p>Only requests for which {@link #shouldHandleRequest} answers true are decoded into kafka-clients
 * message objects; all others stream through the proxy as opaque bytes, which is why the proxy asks
 * before decoding rather than after.</p>
 */
public interface RequestFilter extends Filter {

    /** Whether this filter wants requests of this API and version decoded and handed to it. */
    default boolean shouldHandleRequest(ApiKeys apiKey, short apiVersion) {
        return true;
    }

    /**
     * Handles one request. The returned stage must complete (on any thread) within the proxy's filter
     * timeout, or the connection is closed. Build the result with {@link FilterContext#requestFilterResultBuilder()}
     * or {@link FilterContext#forwardRequest}. The header and request may be modified in place.
     *
     * @param apiVersion the request's version ({@code header.requestApiVersion()}), which its response will have too
     */
    CompletionStage<RequestFilterResult> onRequest(ApiKeys apiKey, short apiVersion, RequestHeaderData header, ApiMessage request,
                                                   FilterContext context);
}
