package io.sluice.proxy.codec;

import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.protocol.ByteBufferAccessor;
import org.apache.kafka.common.protocol.Message;
import org.apache.kafka.common.protocol.ObjectSerializationCache;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;

/** Serialises a header and body with kafka-clients' generated writers straight into one pooled buffer. */
final class MessageCodec {

    private MessageCodec() {
    }

    static ByteBuf encode(ByteBufAllocator alloc, Message header, short headerVersion, ApiMessage body, short version) {
        ObjectSerializationCache cache = new ObjectSerializationCache();
        int size = header.size(cache, headerVersion) + body.size(cache, version);
        ByteBuf out = alloc.directBuffer(4 + size);
        try {
            out.writeInt(size);
            ByteBufferAccessor writer = new ByteBufferAccessor(out.nioBuffer(4, size));
            header.write(writer, cache, headerVersion);
            body.write(writer, cache, version);
            out.writerIndex(4 + size);
            return out;
        } catch (RuntimeException e) {
            out.release();
            throw e;
        }
    }
}
