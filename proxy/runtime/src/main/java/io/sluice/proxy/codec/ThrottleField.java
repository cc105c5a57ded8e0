package io.sluice.proxy.codec;

import java.nio.ByteBuffer;

import org.apache.kafka.common.message.ResponseHeaderData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.ByteBufferAccessor;

import io.netty.buffer.ByteBuf;

/**
 * The {@code throttle_time_ms} of a response still in its frame: for the APIs whose response body begins with it, it
 * lies right after the response header, so a {@link io.sluice.proxy.filter.ResponseSizeHook} can raise it without the
 * response being decoded and encoded again.
 */
final class ThrottleField {

    private ThrottleField() {
    }

    /**
     * Makes the throttle time in {@code frame} (its length prefix at {@code start}, then {@code size} bytes) at least
     * {@code millis}.
     *
     * @throws ProtocolException when the frame ends before the field
     */
    static void raise(ByteBuf frame, int start, int size, ApiKeys api, short version, int millis) {
        ByteBuffer view = frame.nioBuffer(start + 4, size);
        int headerStart = view.position();
        try {
            new ResponseHeaderData(new ByteBufferAccessor(view), api.responseHeaderVersion(version));
        } catch (RuntimeException e) {
            throw new ProtocolException(ProtocolException.Reason.MALFORMED, "undecodable " + api + " response header: " + e, e);
        }
        int offset = view.position() - headerStart;
        if (offset + 4 > size) {
            throw new ProtocolException(ProtocolException.Reason.MALFORMED, api + " response of " + size + " bytes ends before its throttle_time_ms");
        }
        int at = start + 4 + offset;
        if (frame.getInt(at) < millis) {
            frame.setInt(at, millis);
        }
    }
}
