package io.sluice.bridge.protocol;

import java.nio.charset.StandardCharsets;

import org.junit.jupiter.api.Test;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.PooledByteBufAllocator;

import static org.assertj.core.api.Assertions.assertThat;

/** A fan-out reads one frame's payload once per subscriber: found once per frame, and never another frame's. */
class FramePayloadTest {

    private final MessageEncoder encoder = new MessageEncoder(PooledByteBufAllocator.DEFAULT);

    @Test
    void eachSubscriberGetsTheSamePayloadDecodedOnce() {
        EncodedMessage text = encoder.message("/t/k", "e-0", 0, 1, 2, "zwei ü \"drei\"".getBytes(StandardCharsets.UTF_8));
        FramePayload first = FramePayload.of(text.frame());
        FramePayload second = FramePayload.of(text.frame());
        assertThat(first.format()).isEqualTo(PayloadFormat.TEXT);
        assertThat(ByteBufUtil.getBytes(second.bytes())).isEqualTo("zwei ü \"drei\"".getBytes(StandardCharsets.UTF_8));
        // The second subscriber's payload is the first's decoded bytes, not a decode of its own.
        assertThat(second.bytes().array()).isSameAs(first.bytes().array());
        first.bytes().release();
        second.bytes().release();
        text.release();
    }

    @Test
    void theRememberedFrameIsHeldUntilTheNextSoItsBufferCannotBecomeAnotherMessagesFrame() {
        EncodedMessage one = encoder.message("/t/k", "e-0", 0, 1, 2, "{\"n\":1}".getBytes(StandardCharsets.UTF_8));
        ByteBuf frame = one.frame();
        FramePayload payload = FramePayload.of(frame);
        payload.bytes().release();
        int held = frame.refCnt();
        one.release();
        // Released by its message, the frame is still held by what this thread remembers: the pool cannot hand the
        // same buffer out again as the next message's frame while a fan-out may take it for the old one.
        assertThat(frame.refCnt()).isEqualTo(held - 1).isPositive();
        for (int i = 2; i < 200; i++) {
            EncodedMessage next = encoder.message("/t/k", "e-0", 0, i, 2, ("{\"n\":" + i + "}").getBytes(StandardCharsets.UTF_8));
            FramePayload read = FramePayload.of(next.frame());
            assertThat(read.bytes().toString(StandardCharsets.UTF_8)).isEqualTo("{\"n\":" + i + "}");
            read.bytes().release();
            next.release();
        }
        // The next frame taken let the first one go.
        assertThat(frame.refCnt()).isZero();
    }

    @Test
    void aFrameThatIsNotAMessageIsNullEachTime() {
        EncodedMessage message = encoder.message("/t/k", "e-0", 0, 1, 2, "{\"n\":1}".getBytes(StandardCharsets.UTF_8));
        ByteBuf notice = message.frame().retainedSlice(0, 2 + 5);
        notice.setByte(1, 5);
        assertThat(FramePayload.of(notice)).isNull();
        assertThat(FramePayload.of(notice)).isNull();
        notice.release();
        message.release();
    }
}
