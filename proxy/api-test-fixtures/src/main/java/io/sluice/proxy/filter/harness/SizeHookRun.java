package io.sluice.proxy.filter.harness;

import java.nio.ByteBuffer;

import org.apache.kafka.common.message.ResponseHeaderData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.protocol.ByteBufferAccessor;
import org.apache.kafka.common.protocol.MessageUtil;

import io.sluice.proxy.filter.ResponseSizeHook;

/**
 * What the proxy does with a {@link ResponseSizeHook} when the broker's response arrives: the hook gets the response's
 * size as it travels (header and body, as encoded at the request's version) and the throttle it asks for is raised in
 * those bytes, which are then what the filter and the client read.
 */
final class SizeHookRun {

    private SizeHookRun() {
    }

    /** The response as it goes on: {@code response} itself, or a copy read back from bytes whose throttle was raised. */
    static ApiMessage arrive(ResponseSizeHook hook, int correlationId, short version, ApiMessage response) {
        ApiKeys api = ApiKeys.forId(response.apiKey());
        if (!ResponseSizeHook.accepts(api, version)) {
            throw new IllegalStateException("a response size hook on " + api + " v" + version
                    + ", whose response does not begin with throttle_time_ms: the proxy closes the connection");
        }
        ByteBuffer header = MessageUtil.toByteBufferAccessor(new ResponseHeaderData().setCorrelationId(correlationId),
                api.responseHeaderVersion(version)).buffer();
        ByteBuffer body = MessageUtil.toByteBufferAccessor(response, version).buffer();
        int millis = hook.onResponseSize(header.remaining() + body.remaining());
        if (millis <= 0 || body.getInt(body.position()) >= millis) {
            return response;
        }
        body.putInt(body.position(), millis);
        ApiMessage raised = api.messageType.newResponse();
        raised.read(new ByteBufferAccessor(body), version);
        return raised;
    }
}
