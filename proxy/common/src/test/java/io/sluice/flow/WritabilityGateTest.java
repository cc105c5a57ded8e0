package io.sluice.flow;

import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import org.junit.jupiter.api.Test;

import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelOutboundHandlerAdapter;
import io.netty.channel.WriteBufferWaterMark;
import io.netty.channel.embedded.EmbeddedChannel;

import static org.assertj.core.api.Assertions.assertThat;

class WritabilityGateTest {

    /** Counts the reads that reach the socket, that is, get past the gate. */
    private static final class ReadCounter extends ChannelOutboundHandlerAdapter {
        final AtomicInteger reads = new AtomicInteger();

        @Override
        public void read(ChannelHandlerContext ctx) {
            reads.incrementAndGet();
            ctx.read();
        }
    }

    private final ReadCounter counter = new ReadCounter();

    private EmbeddedChannel channel(Duration maxUnwritable) {
        EmbeddedChannel ch = new EmbeddedChannel();
        ch.freezeTime();
        ch.config().setWriteBufferWaterMark(new WriteBufferWaterMark(8, 16));
        ch.pipeline().addFirst(WritabilityGate.NAME, WritabilityGate.closingStuckPeers(maxUnwritable));
        ch.pipeline().addFirst("counter", counter);
        counter.reads.set(0);
        return ch;
    }

    /** Queues bytes towards the peer without flushing them: as a peer that does not read leaves them. */
    private static void queue(EmbeddedChannel ch, int bytes) {
        ch.write(Unpooled.wrappedBuffer(new byte[bytes]));
    }

    @Test
    void readsPassWhileWritableAndAreHeldWhileTheOutboundBufferIsAboveItsHighWaterMark() {
        EmbeddedChannel ch = channel(Duration.ZERO);
        ch.read();
        assertThat(counter.reads).hasValue(1);

        queue(ch, 32);
        assertThat(ch.isWritable()).isFalse();
        ch.read();
        ch.read();
        assertThat(counter.reads).as("no read while the peer has not taken our answers").hasValue(1);

        ch.flush();
        assertThat(ch.isWritable()).isTrue();
        assertThat(counter.reads).as("the held read, once, when the buffer drained").hasValue(2);
        ch.finishAndReleaseAll();
    }

    @Test
    void aHeldAutomaticReadIsDroppedWhenReadingWasPausedMeanwhile() {
        EmbeddedChannel ch = channel(Duration.ZERO);
        queue(ch, 32);
        ch.read();
        WritabilityGate.pauseReading(ch, "a handler of its own");
        ch.flush();
        assertThat(counter.reads).as("a pause cancels a pending automatic read, as autoRead off does in Netty").hasValue(0);
        assertThat(ch.config().isAutoRead()).isFalse();

        queue(ch, 32);
        ch.read();
        ch.flush();
        assertThat(counter.reads).as("an explicit read asked for with autoRead off is owed").hasValue(1);
        WritabilityGate.resumeReading(ch, "a handler of its own");
        assertThat(ch.config().isAutoRead()).isTrue();
        ch.finishAndReleaseAll();
    }

    /**
     * With autoRead on, Netty's epoll and NIO transports keep reading whether or not read() is called; only autoRead
     * off drops the socket's read interest. So the gate switches it off while the channel is unwritable, and back on
     * once it drains unless someone paused reading meanwhile.
     */
    @Test
    void autoReadIsOffExactlyWhileTheChannelIsUnwritableOrSomeonePausesReading() {
        EmbeddedChannel ch = channel(Duration.ZERO);
        assertThat(ch.config().isAutoRead()).isTrue();
        queue(ch, 32);
        assertThat(ch.config().isAutoRead()).as("unwritable").isFalse();
        WritabilityGate.pauseReading(ch, "connect");
        ch.flush();
        assertThat(ch.config().isAutoRead()).as("writable, but paused").isFalse();
        WritabilityGate.resumeReading(ch, "connect");
        assertThat(ch.config().isAutoRead()).isTrue();
        ch.config().setAutoRead(true);
        queue(ch, 32);
        WritabilityGate.resumeReading(ch, "nobody");
        assertThat(ch.config().isAutoRead()).as("a resume does not override the writability rule").isFalse();
        ch.finishAndReleaseAll();
    }

    @Test
    void aPeerThatStaysUnwritablePastTheLimitIsClosedAndPartialDrainsDoNotRestartTheClock() {
        EmbeddedChannel ch = channel(Duration.ofSeconds(10));
        queue(ch, 20);
        queue(ch, 20);
        ch.advanceTimeBy(6, TimeUnit.SECONDS);
        ch.runScheduledPendingTasks();
        assertThat(ch.isOpen()).isTrue();

        // The peer takes one answer (the buffer stays above the low-water mark): still the same unwritable spell.
        ch.unsafe().outboundBuffer().addFlush();
        ch.unsafe().outboundBuffer().remove();
        assertThat(ch.isWritable()).isFalse();
        ch.advanceTimeBy(5, TimeUnit.SECONDS);
        ch.runScheduledPendingTasks();
        assertThat(ch.isOpen()).as("closed 10 s after it became unwritable").isFalse();
    }

    @Test
    void aPeerThatDrainsInTimeIsNotClosed() {
        EmbeddedChannel ch = channel(Duration.ofSeconds(10));
        queue(ch, 32);
        ch.advanceTimeBy(9, TimeUnit.SECONDS);
        ch.runScheduledPendingTasks();
        ch.flush();
        ch.advanceTimeBy(5, TimeUnit.SECONDS);
        ch.runScheduledPendingTasks();
        queue(ch, 32);
        ch.advanceTimeBy(9, TimeUnit.SECONDS);
        ch.runScheduledPendingTasks();
        assertThat(ch.isOpen()).as("two spells of 9 s are not one of 18").isTrue();
        ch.finishAndReleaseAll();
    }

    /** Records the messages that get past a decoded-message gate. */
    private static final class Received extends io.netty.channel.ChannelInboundHandlerAdapter {
        final java.util.List<Object> messages = new java.util.ArrayList<>();

        @Override
        public void channelRead(ChannelHandlerContext ctx, Object msg) {
            messages.add(msg);
            // Each request is answered with more than the high-water mark, as a pipelined GET of a file is.
            ctx.write(Unpooled.wrappedBuffer(new byte[32]));
        }
    }

    @Test
    void aDecodedGateHoldsMessagesAlreadyReadWhileUnwritableAndLetsNoReadThroughUntilItHasPassedThemAll() {
        EmbeddedChannel ch = new EmbeddedChannel();
        ch.config().setWriteBufferWaterMark(new WriteBufferWaterMark(8, 16));
        Received received = new Received();
        ch.pipeline().addLast("counter", counter);
        ch.pipeline().addLast(WritabilityGate.NAME, WritabilityGate.holdingDecoded());
        ch.pipeline().addLast("app", received);
        counter.reads.set(0);

        // One read carried three requests: the first answer makes the channel unwritable, the other two wait.
        ch.writeInbound("a", "b", "c");
        assertThat(received.messages).containsExactly("a");
        ch.read();
        assertThat(counter.reads).as("no read while answers wait and requests are held").hasValue(0);

        ch.flush();
        assertThat(received.messages).as("one more, which fills the buffer again").containsExactly("a", "b");
        assertThat(counter.reads).hasValue(0);
        ch.flush();
        ch.flush();
        assertThat(received.messages).containsExactly("a", "b", "c");
        assertThat(counter.reads).as("the held read, once every held request has been passed on").hasValue(1);
        ch.finishAndReleaseAll();
    }

    @Test
    void messagesHeldWhenTheChannelClosesAreReleased() {
        EmbeddedChannel ch = new EmbeddedChannel();
        ch.config().setWriteBufferWaterMark(new WriteBufferWaterMark(8, 16));
        ch.pipeline().addLast(WritabilityGate.NAME, WritabilityGate.holdingDecoded());
        ch.pipeline().addLast("app", new Received());
        io.netty.buffer.ByteBuf first = Unpooled.buffer(4).writeInt(1);
        io.netty.buffer.ByteBuf second = Unpooled.buffer(4).writeInt(2);
        ch.writeInbound(first, second);
        assertThat(second.refCnt()).as("held").isEqualTo(1);
        ch.close();
        assertThat(second.refCnt()).isZero();
        first.release();
        ch.finishAndReleaseAll();
    }
}
