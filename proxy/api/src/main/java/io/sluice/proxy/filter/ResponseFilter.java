package io.sluice.proxy.filter;

import java.util.concurrent.CompletionStage;

import org.apache.kafka.common.message.ResponseHeaderData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.ApiMessage;

/**
 * A filter that sees responses on their way from the broker to the client (and responses to out-of-band
 * requests sent by filters nearer the client).
 */
public interface ResponseFilter extends Filter {

    /**
     * Whether this filter wants responses of this API and version decoded. Asked when the request is
     * forwarded, because the response version is the request's version.
     */
    default boolean shouldHandleResponse(ApiKeys apiKey, short apiVersion) {
        return true;
    }

    /**
     * Whether this filter's interest in responses of this API and version is a reason for the proxy to decode them;
     * by default it is ({@link #shouldHandleResponse}). A filter that only observes answers false where decoding costs
     * most: a Fetch response, megabytes of records the proxy would otherwise pass on as the bytes they are, is decoded
     * and encoded again for whoever handles it. Its {@code onResponse} then runs for such a response only when the
     * proxy decodes it anyway (another filter handles it, a filter attached a {@link ResponseHook} to its request, or
     * a filter nearer the broker answered the request itself), and the others pass it unseen. Asked, like
     * {@code shouldHandleResponse}, once per API and version.
     */
    default boolean requiresDecodedResponse(ApiKeys apiKey, short apiVersion) {
        return shouldHandleResponse(apiKey, apiVersion);
    }

    /** Handles one response; see {@link RequestFilter#onRequest} for the completion rules. */
    CompletionStage<ResponseFilterResult> onResponse(ApiKeys apiKey, short apiVersion, ResponseHeaderData header, ApiMessage response,
                                                     FilterContext context);
}
