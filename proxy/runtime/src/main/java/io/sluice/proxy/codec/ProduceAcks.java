package io.sluice.proxy.codec;

import java.nio.ByteBuffer;

import org.apache.kafka.common.protocol.ByteBufferAccessor;

/**
 * Reads a Produce request's {@code acks} without decoding it: the only body field the proxy must know for
 * an opaque request, because acks=0 means the broker will send no response and nothing may wait for one.
 */
final class ProduceAcks {

    private ProduceAcks() {
    }

    /** {@code body} is positioned just after the request header. */
    static short peek(ByteBuffer body, short apiVersion) {
        ByteBufferAccessor in = new ByteBufferAccessor(body.duplicate());
        if (apiVersion >= 9) {
            int lengthPlusOne = in.readUnsignedVarint();
            skip(in, lengthPlusOne - 1);
        } else if (apiVersion >= 3) {
            skip(in, in.readShort());
        }
        return in.readShort();
    }

    private static void skip(ByteBufferAccessor in, int length) {
        if (length > 0) {
            in.buffer().position(in.buffer().position() + length);
        }
    }
}
