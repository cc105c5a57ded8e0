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

    /** Handles one response; see {@link RequestFilter#onRequest} for the completion rules. */
    CompletionStage<ResponseFilterResult> onResponse(ApiKeys apiKey, short apiVersion, ResponseHeaderData header, ApiMessage response,
                                                     FilterContext context);
}
