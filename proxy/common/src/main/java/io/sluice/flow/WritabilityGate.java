package io.sluice.flow;

import java.time.Duration;
import java.util.ArrayDeque;
import java.util.HashSet;
import java.util.Set;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.BiConsumer;

import io.netty.channel.Channel;
import io.netty.channel.ChannelDuplexHandler;
import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.util.ReferenceCountUtil;

/**
 * The one rule of back-pressure towards a peer: a channel whose outbound buffer is above its high-water mark
 * ({@link Channel#isWritable()} false) is not read until it drains below the low-water mark, whatever put the bytes
 * there (forwarded responses, answers the server made itself, error replies, files, pongs). A peer that sends and
 * never reads therefore stops being read once it holds a high-water mark's worth of our answers, instead of making
 * us answer, and buffer, without end.
 * <p>
 * It holds the {@code read()} operation, and, because with {@code autoRead} on Netty's transports keep the socket's read
 * interest whether or not {@code read()} is called (epoll and NIO only drop it when {@code autoRead} is off), it also
 * switches {@code autoRead} off while the channel is unwritable. Handlers that pause reading for reasons of their own
 * (the bridge while a connect is validated or a subscribe waits) must therefore not switch {@code autoRead}
 * themselves, or the two would undo each other: they call {@link #pauseReading} and {@link #resumeReading}, and
 * {@code autoRead} is on exactly when the channel is writable and nobody pauses it. A read asked for while the channel
 * is unwritable is held and issued once it is writable again, unless {@code autoRead} was switched off meanwhile
 * (which in Netty cancels a pending automatic read).
 * Placed first in the pipeline, nearest the socket, so that every read, including the TLS handshake's, passes it.
 * <p>
 * A peer that keeps the channel unwritable for longer than {@code maxUnwritable} without a pause is closed: it holds
 * a high-water mark of memory and a socket, and a peer that reads a byte now and then must not hold them forever.
 * The clock does not restart on partial progress, only when the buffer really drains.
 * <p>
 * Holding reads is not enough where one read can carry many small requests with large answers (pipelined HTTP GETs of
 * a file: 45 bytes in, 20 KB out, a thousand of them in one 64 KiB read). For that a second gate of the same rule,
 * {@link #holdingDecoded()}, goes right after the decoder: it also holds the messages decoded from bytes already read
 * while the channel is unwritable, passes them on one by one while it is writable, and lets no read through while it
 * still holds any. What a peer can make the server hold beyond the high-water mark is then one read's worth of
 * decoded requests and the answer to one of them.
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
    /** Decoded messages waiting for the channel to be writable; null for a gate that holds only reads. */
    private final ArrayDeque<Object> held;
    private boolean releasing;
    /**
     * Who paused reading besides the gate itself, null when nobody does (a gate lives as long as its connection, and an
     * empty set with its table is ~150 bytes of it); event loop only.
     */
    private Set<Object> pausedBy;
    private ChannelHandlerContext context;
    /** Whether autoRead is off only because the channel is unwritable (so a read asked for meanwhile is automatic). */
    private boolean offByGate;

    /**
     * @param maxUnwritable how long the channel may stay unwritable before {@code onStuck} is called; zero or
     *                      negative never
     * @param onStuck       called once, on the event loop, with the channel and {@code maxUnwritable}; it must close
     *                      the channel (with {@link Closing}, so the close is not itself stuck behind the buffer)
     */
    public WritabilityGate(Duration maxUnwritable, BiConsumer<Channel, Duration> onStuck) {
        this(maxUnwritable, onStuck, false);
    }

    private WritabilityGate(Duration maxUnwritable, BiConsumer<Channel, Duration> onStuck, boolean holdDecoded) {
        this.maxUnwritableNanos = maxUnwritable.toNanos();
        this.onStuck = onStuck;
        // Small: it holds one read's messages at most, and only while the channel is unwritable; it grows if need be.
        this.held = holdDecoded ? new ArrayDeque<>(2) : null;
    }

    /**
     * A gate for the place right after a decoder: it holds reads, as every gate does, and also the decoded messages
     * that arrive while the channel is unwritable (see the class comment). It never closes anyone: the gate nearest the
     * socket keeps the clock.
     */
    public static WritabilityGate holdingDecoded() {
        return new WritabilityGate(Duration.ZERO, (channel, limit) -> channel.close(), true);
    }

    /**
     * Stops reading {@code channel} until {@link #resumeReading} with the same {@code who}; through the channel's gate
     * ({@link #NAME}) when it has one, else by switching {@code autoRead} off. Event loop only.
     */
    public static void pauseReading(Channel channel, Object who) {
        if (channel.pipeline().get(NAME) instanceof WritabilityGate gate && gate.context != null) {
            if (gate.pausedBy == null) {
                gate.pausedBy = new HashSet<>(4);
            }
            gate.pausedBy.add(who);
            gate.offByGate = false;
            gate.applyAutoRead(gate.context);
        }
        else {
            channel.config().setAutoRead(false);
        }
    }

    /** Ends {@code who}'s pause; reading resumes once nobody pauses it and the channel is writable. Event loop only. */
    public static void resumeReading(Channel channel, Object who) {
        if (channel.pipeline().get(NAME) instanceof WritabilityGate gate && gate.context != null) {
            if (gate.pausedBy != null && gate.pausedBy.remove(who) && gate.pausedBy.isEmpty()) {
                gate.pausedBy = null;
            }
            gate.applyAutoRead(gate.context);
        }
        else {
            channel.config().setAutoRead(true);
        }
    }

    /** autoRead on exactly when the channel is writable and nobody pauses it; the gate nearest the socket only. */
    private void applyAutoRead(ChannelHandlerContext ctx) {
        if (held != null) {
            return;
        }
        boolean wanted = ctx.channel().isWritable() && pausedBy == null;
        if (ctx.channel().config().isAutoRead() != wanted) {
            offByGate = !wanted && pausedBy == null;
            ctx.channel().config().setAutoRead(wanted);
        }
    }

    @Override
    public void handlerAdded(ChannelHandlerContext ctx) {
        context = ctx;
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
        if (held == null || (held.isEmpty() && ctx.channel().isWritable())) {
            ctx.fireChannelRead(msg);
            return;
        }
        held.add(msg);
    }

    /** Passes held messages on while the channel stays writable; true if it passed any. */
    private boolean release(ChannelHandlerContext ctx) {
        if (held == null || releasing) {
            return false;
        }
        boolean any = false;
        releasing = true;
        try {
            while (!held.isEmpty() && ctx.channel().isWritable() && ctx.channel().isActive()) {
                any = true;
                ctx.fireChannelRead(held.poll());
            }
        }
        finally {
            releasing = false;
        }
        if (any) {
            ctx.fireChannelReadComplete();
        }
        return any;
    }

    private boolean holding() {
        return held != null && !held.isEmpty();
    }

    /** A gate whose stuck peer is closed at once, with no further flush. */
    public static ChannelHandler closingStuckPeers(Duration maxUnwritable) {
        return new WritabilityGate(maxUnwritable, (channel, limit) -> channel.close());
    }

    @Override
    public void read(ChannelHandlerContext ctx) {
        if (ctx.channel().isWritable() && holding()) {
            release(ctx);
        }
        if (ctx.channel().isWritable() && !holding()) {
            ctx.read();
            return;
        }
        if (!readHeld) {
            readHeld = true;
            heldReadExplicit = !ctx.channel().config().isAutoRead() && !offByGate;
        }
        if (!ctx.channel().isWritable()) {
            applyAutoRead(ctx);
        }
        watch(ctx);
    }

    @Override
    public void channelWritabilityChanged(ChannelHandlerContext ctx) {
        if (ctx.channel().isWritable()) {
            if (stuckCheck != null) {
                stuckCheck.cancel(false);
                stuckCheck = null;
            }
            release(ctx);
            if (readHeld && ctx.channel().isWritable() && !holding()) {
                readHeld = false;
                if (heldReadExplicit || ctx.channel().config().isAutoRead()) {
                    ctx.read();
                }
            }
            applyAutoRead(ctx);
        } else {
            applyAutoRead(ctx);
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
        dropHeld();
        ctx.fireChannelInactive();
    }

    @Override
    public void handlerRemoved(ChannelHandlerContext ctx) {
        context = null;
        dropHeld();
    }

    private void dropHeld() {
        if (held != null) {
            for (Object msg = held.poll(); msg != null; msg = held.poll()) {
                ReferenceCountUtil.release(msg);
            }
        }
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
