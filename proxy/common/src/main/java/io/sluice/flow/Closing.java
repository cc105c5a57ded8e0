package io.sluice.flow;

import java.time.Duration;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;

import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.socket.DuplexChannel;

/**
 * Closes that end with the socket closed. Closing "once the last reply is flushed" waits on the peer: one that never
 * reads never lets the flush complete, and the socket, its buffered bytes and the connection's state stay forever.
 * Every close that wants to flush first goes through here and is bounded by a grace period.
 */
public final class Closing {

    /**
     * How long a close waits for what is queued to be flushed. Long enough for a reply to a reading peer, even a
     * slow one, to leave (TLS's close_notify uses the same order of time); short against a non-reading one.
     */
    public static final Duration DEFAULT_GRACE = Duration.ofSeconds(3);

    private Closing() {
    }

    /** Flushes what is queued on {@code channel} (from its tail), then closes it; closes it anyway after {@code grace}. */
    public static ChannelFuture flushThenClose(Channel channel, Duration grace) {
        return closeOnceDone(channel, channel.writeAndFlush(Unpooled.EMPTY_BUFFER), grace);
    }

    /** As {@link #flushThenClose(Channel, Duration)}, flushing from {@code ctx}'s place in the pipeline. */
    public static ChannelFuture flushThenClose(ChannelHandlerContext ctx, Duration grace) {
        return closeOnceDone(ctx.channel(), ctx.writeAndFlush(Unpooled.EMPTY_BUFFER), grace);
    }

    /**
     * Closes {@code channel} when {@code written} completes (a last reply, say, or a close frame), or after
     * {@code grace}, whichever comes first.
     *
     * @return the channel's close future
     */
    public static ChannelFuture closeOnceDone(Channel channel, ChannelFuture written, Duration grace) {
        written.addListener(ChannelFutureListener.CLOSE);
        if (!written.isDone()) {
            ScheduledFuture<?> deadline = channel.eventLoop().schedule(() -> {
                channel.close();
            }, grace.toNanos(), TimeUnit.NANOSECONDS);
            channel.closeFuture().addListener(f -> deadline.cancel(false));
        }
        return channel.closeFuture();
    }

    /**
     * Sends nothing more after {@code written} (a close frame, say) and lets the peer finish: once it is written, the
     * output is shut down (the peer reads the reply, then the end of the stream) and the connection stays open for
     * reading, whatever arrives to be discarded by the caller, until the peer closes or {@code grace} passes. Closing
     * at once while the peer is still sending leaves unread bytes in the socket, and the kernel then answers with a
     * reset, which can destroy the reply at the peer before it is read.
     *
     * @return the channel's close future
     */
    public static ChannelFuture lingerAfter(Channel channel, ChannelFuture written, Duration grace) {
        written.addListener(f -> {
            if (f.isSuccess() && channel.isActive() && channel instanceof DuplexChannel duplex) {
                duplex.shutdownOutput();
            } else {
                channel.close();
            }
        });
        ScheduledFuture<?> deadline = channel.eventLoop().schedule(() -> {
            channel.close();
        }, grace.toNanos(), TimeUnit.NANOSECONDS);
        channel.closeFuture().addListener(f -> deadline.cancel(false));
        return channel.closeFuture();
    }
}
