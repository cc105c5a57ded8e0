package io.sluice.proxy.codec;

import java.nio.ByteBuffer;

import org.apache.kafka.common.message.FetchResponseData;
import org.apache.kafka.common.message.ResponseHeaderData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.ByteBufferAccessor;
import org.apache.kafka.common.protocol.MessageUtil;
import org.apache.kafka.common.protocol.types.RawTaggedField;
import org.junit.jupiter.api.Test;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The throttle raised in a broker's frame: found after a flexible header's tagged fields, never lowered, bounded by the frame. */
class ThrottleFieldTest {

    private static final short FLEXIBLE = 12;
    private static final short RIGID = 11;

    @Test
    void theThrottleIsFoundAfterTheHeadersTaggedFieldsAndRaised() {
        ResponseHeaderData header = new ResponseHeaderData().setCorrelationId(7);
        header.unknownTaggedFields().add(new RawTaggedField(5, new byte[] {1, 2, 3}));
        ByteBuf frame = frame(header, new FetchResponseData().setThrottleTimeMs(10).setSessionId(99), FLEXIBLE);
        ThrottleField.raise(frame, 0, frame.readableBytes() - 4, ApiKeys.FETCH, FLEXIBLE, 250);
        FetchResponseData read = read(frame, FLEXIBLE);
        assertThat(read.throttleTimeMs()).isEqualTo(250);
        assertThat(read.sessionId()).as("the rest of the body untouched").isEqualTo(99);
    }

    @Test
    void aLongerThrottleTheBrokerSetIsKept() {
        ByteBuf frame = frame(new ResponseHeaderData().setCorrelationId(7), new FetchResponseData().setThrottleTimeMs(900), RIGID);
        ThrottleField.raise(frame, 0, frame.readableBytes() - 4, ApiKeys.FETCH, RIGID, 250);
        assertThat(read(frame, RIGID).throttleTimeMs()).isEqualTo(900);
    }

    @Test
    void aFrameThatEndsBeforeTheThrottleIsMalformedAndNothingIsWrittenPastIt() {
        ByteBuf frame = Unpooled.buffer().writeInt(6).writeInt(7).writeShort(0);
        assertThatThrownBy(() -> ThrottleField.raise(frame, 0, 6, ApiKeys.FETCH, RIGID, 250))
                .isInstanceOf(ProtocolException.class).hasMessageContaining("ends before its throttle_time_ms");
        assertThat(frame.writerIndex()).isEqualTo(10);
    }

    @Test
    void aHeaderWhoseTaggedFieldsLieAboutTheirLengthIsMalformed() {
        // Correlation id, then one tagged field claiming 100 bytes in a frame that has 2.
        ByteBuf frame = Unpooled.buffer().writeInt(9).writeInt(7).writeByte(1).writeByte(0).writeByte(100).writeShort(0);
        assertThatThrownBy(() -> ThrottleField.raise(frame, 0, 9, ApiKeys.FETCH, FLEXIBLE, 250))
                .isInstanceOf(ProtocolException.class).hasMessageContaining("undecodable FETCH response header");
    }

    private static ByteBuf frame(ResponseHeaderData header, FetchResponseData body, short version) {
        ByteBuffer h = MessageUtil.toByteBufferAccessor(header, ApiKeys.FETCH.responseHeaderVersion(version)).buffer();
        ByteBuffer b = MessageUtil.toByteBufferAccessor(body, version).buffer();
        return Unpooled.buffer().writeInt(h.remaining() + b.remaining()).writeBytes(h).writeBytes(b);
    }

    private static FetchResponseData read(ByteBuf frame, short version) {
        ByteBufferAccessor in = new ByteBufferAccessor(frame.nioBuffer(4, frame.readableBytes() - 4));
        new ResponseHeaderData(in, ApiKeys.FETCH.responseHeaderVersion(version));
        FetchResponseData response = new FetchResponseData();
        response.read(in, version);
        return response;
    }
}
