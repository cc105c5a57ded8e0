package io.sluice.bridge.http;

import java.util.concurrent.TimeUnit;

import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelOutboundHandlerAdapter;
import io.netty.channel.ChannelPromise;
import io.netty.handler.codec.http2.DefaultHttp2ResetFrame;
import io.netty.handler.codec.http2.Http2Error;
import io.netty.handler.codec.http2.Http2FrameStream;
import io.netty.handler.codec.http2.Http2Stream;
import io.netty.handler.codec.http2.Http2StreamChannel;

/**
 * Ends an HTTP/2 stream that this side closes before both halves have ended. In: the stream channel's close; out: the
 * close, preceded by the RST_STREAM the state calls for.
 *
 * <ul>
 *   <li>Our response not ended, the client's done (HALF_CLOSED_REMOTE): RST_STREAM CANCEL. Netty resets on close only
 *       while the client's half is open; an event-stream GET ends the client's half with its HEADERS, so a stream closed
 *       at a grace deadline (its last DATA frames, the {@code close} event among them, still waiting for the client's
 *       window) would stay open at the client, which learned nothing until the connection itself went idle.</li>
 *   <li>Our response complete, the client still sending (HALF_CLOSED_LOCAL: a 413 on a publish whose body is too large):
 *       the stream lingers for {@link #LINGER_MILLIS} with reading paused, then RST_STREAM NO_ERROR (RFC 9113 section
 *       8.1: stop sending, keep the response). A reset at once, CANCEL (Netty's) or NO_ERROR alike, made curl 7.88 fail
 *       the transfer with error 92 and drop the 413 about one time in five: it handles the reset while still in its
 *       upload, before it has delivered the response. Lingering lets a client read the answer it already has and end
 *       the stream itself (curl stops sending on a final error status), and costs little: paused, the stream takes no
 *       more than the flow-control window it was granted, and the reset comes on the deadline whatever the client
 *       does.</li>
 * </ul>
 */
final class ResetOnClose extends ChannelOutboundHandlerAdapter {

    /**
     * How long a stream answered early waits for its client before it is reset. Long enough for a client to take in a
     * response already on the wire (curl's window is well under a millisecond on loopback), short against
     * connections.handshakeTimeout, the deadline of a whole request, so the stream's slot is held briefly.
     */
    static final long LINGER_MILLIS = 1000;

    @Override
    public void close(ChannelHandlerContext ctx, ChannelPromise promise) {
        if (ctx.channel() instanceof Http2StreamChannel channel && channel.parent().isActive()) {
            Http2FrameStream stream = channel.stream();
            Http2Stream.State state = stream == null || stream.id() <= 0 ? null : stream.state();
            // HALF_CLOSED_REMOTE: the client is done sending and our END_STREAM has not been written (it is written
            // once the flow controller lets it go, closing the stream); OPEN is Netty's own case.
            if (state == Http2Stream.State.HALF_CLOSED_REMOTE) {
                ctx.writeAndFlush(new DefaultHttp2ResetFrame(Http2Error.CANCEL).stream(stream));
            }
            // HALF_CLOSED_LOCAL: our END_STREAM has been written (Netty moves the state when the frame writer takes it).
            else if (state == Http2Stream.State.HALF_CLOSED_LOCAL) {
                linger(ctx, channel, stream, promise);
                return;
            }
        }
        ctx.close(promise);
    }

    private static void linger(ChannelHandlerContext ctx, Http2StreamChannel channel, Http2FrameStream stream,
                               ChannelPromise promise) {
        channel.config().setAutoRead(false);
        // The client may end or reset the stream meanwhile: Netty then closes the channel itself, past this handler.
        channel.closeFuture().addListener(closed -> promise.trySuccess());
        ctx.executor().schedule(() -> {
            if (channel.isActive()) {
                if (channel.parent().isActive() && stream.state() != Http2Stream.State.CLOSED) {
                    // Once this reset is sent Netty writes no second one (it skips a stream whose reset was sent).
                    ctx.writeAndFlush(new DefaultHttp2ResetFrame(Http2Error.NO_ERROR).stream(stream));
                }
                ctx.close(promise);
            }
        }, LINGER_MILLIS, TimeUnit.MILLISECONDS);
    }
}
