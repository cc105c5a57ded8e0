package io.sluice.proxy.filter;

import org.apache.kafka.common.errors.ApiException;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.protocol.MessageUtil;
import org.apache.kafka.common.requests.AbstractRequest;

/**
 * Error responses built the way the broker builds them: kafka-clients' request classes know, per API, how
 * to spread an error over every topic, partition or group in the request, so round-trip through them
 * rather than re-implementing that for ~70 APIs. Error paths only, so the extra serialisation is fine.
 *
 * <p>Filters build error messages from what the client sent (a group, a transactional id, a topic name), and those
 * strings may be as long as the protocol allows (32,767 characters): a message quoting one could no longer be
 * written as a Kafka string and the response would be lost. So every message is cut to
 * {@value #MAX_MESSAGE_CHARS} characters here, once for every filter.</p>
 */
final class ErrorResponses {

    static final int MAX_MESSAGE_CHARS = 1000;

    private ErrorResponses() {
    }

    static ApiMessage forRequest(short apiVersion, ApiMessage request, ApiException error) {
        ApiKeys apiKey = ApiKeys.forId(request.apiKey());
        var bytes = MessageUtil.toByteBufferAccessor(request, apiVersion);
        AbstractRequest parsed = AbstractRequest.parseRequest(apiKey, apiVersion, bytes).request;
        return parsed.getErrorResponse(0, bounded(error)).data();
    }

    static ApiException bounded(ApiException error) {
        String message = error.getMessage();
        if (message == null || message.length() <= MAX_MESSAGE_CHARS) {
            return error;
        }
        // The same error code (Errors finds it by the exception's class), with a message a Kafka string can hold.
        return Errors.forException(error).exception(message.substring(0, MAX_MESSAGE_CHARS - 1) + "…");
    }
}
