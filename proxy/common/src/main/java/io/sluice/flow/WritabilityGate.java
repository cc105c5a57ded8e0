package io.sluice.flow;

import java.time.Duration;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.BiConsumer;

import io.netty.channel.Channel;
import io.netty.channel.ChannelDuplexHandler;
import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelHandlerContext;

/**
 * The one rule of back-pressure towards a peer: a channel whose outbound buffer is above its high-water mark
 * ({@link Channel#isWritable()} false) is not read until it drains below the low-water mark, whatever put the bytes
 * there (forwarded responses, answers the server made itself, error replies, files, pongs). A peer that sends and
 * never reads therefore stops being read once it holds a high-water mark's worth of our answers, instead of making
 * us answer, and buffer, without end.
 * <p>
 * It works on the {@code read()} operation rather than on {@code autoRead}, so it composes with handlers that switch
 * {@code autoRead} for reasons of their own (the proxy pauses a client while its broker connection is busy, the bridge
 * while a subscribe waits): a read asked for while the channel is unwritable is held and issued once it is writable
 * again, unless {@code autoRead} was switched off meanwhile (which in Netty cancels a pending automatic read). The
 * socket's read interest is withdrawn as the channel turns unwritable ({@link #stopSocketReads}).
 * Placed first in the pipeline, nearest the socket, so that every read, including the TLS handshake's, passes it.
 * <p>
 * A peer that keeps the channel unwritable for longer than {@code maxUnwritable} without a pause is closed: it holds
 * a high-water mark of memory and a socket, and a peer that reads a byte now and then must not hold them forever.
 * The clock does not restart on partial progress, only when the buffer really drains.
 */
public final class WritabilityGate extends ChannelDuplexHandler {

    /** The handler's name in every pipeline that has it. */
    public static final String NAME = "writability-gate";

    private final long maxUnwritableNanos;
    private final BiConsumer<Channel, Duration> onStuck;
    private boolean readHeld;
    /** Whether the held read was asked for with autoRead off: an explicit read, owed whatever autoRead is later. */
    private boolean heldReadExplicit;
    private ScheduledFuture<?> stuckCheck;
    private boolean stoppingSocketReads;

    /**
     * @param maxUnwritable how long the channel may stay unwritable before {@code onStuck} is called; zero or
     *                      negative never
     * @param onStuck       called once, on the event loop, with the channel and {@code maxUnwritable}; it must close
     *                      the channel (with {@link Closing}, so the close is not itself stuck behind the buffer)
     */
    public WritabilityGate(Duration maxUnwritable, BiConsumer<Channel, Duration> onStuck) {
        this.maxUnwritableNanos = maxUnwritable.toNanos();
        this.onStuck = onStuck;
    }

    /** A gate whose stuck peer is closed at once, with no further flush. */
    public static ChannelHandler closingStuckPeers(Duration maxUnwritable) {
        return new WritabilityGate(maxUnwritable, (channel, limit) -> channel.close());
    }

    @Override
    public void read(ChannelHandlerContext ctx) {
        if (stoppingSocketReads) {
            return;
        }
        if (ctx.channel().isWritable()) {
            ctx.read();
            return;
        }
        if (!readHeld) {
            readHeld = true;
            heldReadExplicit = !ctx.channel().config().isAutoRead();
        }
        stopSocketReads(ctx.channel());
        watch(ctx);
    }

    /**
     * Holding back read() is not enough on its own: with autoRead on, the transports (NIO, epoll, io_uring) leave the
     * socket's read interest registered after a read loop and keep reading without being asked. Switching autoRead
     * off is what withdraws that interest; switching it straight back on leaves the setting as its owners left it
     * (they see no change), and the read() that switch issues is held here until the channel is writable again.
     */
    private void stopSocketReads(Channel channel) {
        if (!channel.config().isAutoRead()) {
            return;
        }
        stoppingSocketReads = true;
        try {
            channel.config().setAutoRead(false);
            channel.config().setAutoRead(true);
        } finally {
            stoppingSocketReads = false;
        }
    }

    @Override
    public void channelWritabilityChanged(ChannelHandlerContext ctx) {
        if (ctx.channel().isWritable()) {
            if (stuckCheck != null) {
                stuckCheck.cancel(false);
                stuckCheck = null;
            }
            if (readHeld) {
                readHeld = false;
                if (heldReadExplicit || ctx.channel().config().isAutoRead()) {
                    ctx.read();
                }
            }
        } else {
            if (!readHeld && ctx.channel().config().isAutoRead()) {
                // Reading on until the next read() would be one more read loop: stop now, owing that read.
                readHeld = true;
                heldReadExplicit = false;
                stopSocketReads(ctx.channel());
            }
            watch(ctx);
        }
        ctx.fireChannelWritabilityChanged();
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) {
        if (stuckCheck != null) {
            stuckCheck.cancel(false);
            stuckCheck = null;
        }
        ctx.fireChannelInactive();
    }

    private void watch(ChannelHandlerContext ctx) {
        if (stuckCheck != null || maxUnwritableNanos <= 0 || !ctx.channel().isActive()) {
            return;
        }
        stuckCheck = ctx.executor().schedule(() -> {
            stuckCheck = null;
            if (!ctx.channel().isWritable() && ctx.channel().isActive()) {
                onStuck.accept(ctx.channel(), Duration.ofNanos(maxUnwritableNanos));
            }
        }, maxUnwritableNanos, TimeUnit.NANOSECONDS);
    }
}
