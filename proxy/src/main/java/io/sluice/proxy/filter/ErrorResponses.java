package io.sluice.proxy.filter;

import org.apache.kafka.common.errors.ApiException;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.protocol.MessageUtil;
import org.apache.kafka.common.requests.AbstractRequest;

/**
 * Error responses built the way the broker builds them: kafka-clients' request classes know, per API, how
 * to spread an error over every topic, partition or group in the request, so round-trip through them
 * rather than re-implementing that for ~70 APIs. Error paths only, so the extra serialisation is fine.
 */
final class ErrorResponses {

    private ErrorResponses() {
    }

    static ApiMessage forRequest(short apiVersion, ApiMessage request, ApiException error) {
        ApiKeys apiKey = ApiKeys.forId(request.apiKey());
        var bytes = MessageUtil.toByteBufferAccessor(request, apiVersion);
        AbstractRequest parsed = AbstractRequest.parseRequest(apiKey, apiVersion, bytes).request;
        return parsed.getErrorResponse(0, error).data();
    }
}
