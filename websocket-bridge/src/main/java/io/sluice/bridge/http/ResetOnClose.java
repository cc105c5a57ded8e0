package io.sluice.bridge.http;

import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelOutboundHandlerAdapter;
import io.netty.channel.ChannelPromise;
import io.netty.handler.codec.http2.DefaultHttp2ResetFrame;
import io.netty.handler.codec.http2.Http2Error;
import io.netty.handler.codec.http2.Http2FrameStream;
import io.netty.handler.codec.http2.Http2Stream;
import io.netty.handler.codec.http2.Http2StreamChannel;

/**
 * Resets an HTTP/2 stream that this side closes before ending it. Netty sends RST_STREAM on such a close only while the
 * client's half of the stream is open; an event-stream GET ends the client's half with its HEADERS, so a stream closed
 * at a grace deadline (its last DATA frames, the {@code close} event among them, still waiting for the client's window)
 * would stay open at the client, which learned nothing until the connection itself went idle and was ended.
 *
 * <p>The other way round, a response that is complete while the client is still sending (a 413 on a publish whose body
 * is too large) is followed by RST_STREAM NO_ERROR, as RFC 9113 section 8.1 asks of a server that answers before the
 * request has ended: the client stops sending and keeps the response. Netty's own reset there is CANCEL, which curl
 * (nghttp2) reports as a failed transfer and drops the 413 with, whenever both frames reach it in one read.
 */
final class ResetOnClose extends ChannelOutboundHandlerAdapter {

    @Override
    public void close(ChannelHandlerContext ctx, ChannelPromise promise) {
        if (ctx.channel() instanceof Http2StreamChannel channel && channel.parent().isActive()) {
            Http2FrameStream stream = channel.stream();
            // HALF_CLOSED_REMOTE: the client is done sending and our END_STREAM has not been written (it is written
            // once the flow controller lets it go, closing the stream); OPEN is Netty's own case.
            if (stream != null && stream.id() > 0 && stream.state() == Http2Stream.State.HALF_CLOSED_REMOTE) {
                ctx.writeAndFlush(new DefaultHttp2ResetFrame(Http2Error.CANCEL).stream(stream));
            }
            // HALF_CLOSED_LOCAL: our END_STREAM has been written (Netty moves the state when the frame writer takes
            // it), the client's half is still open. Netty's close would reset with CANCEL; once this reset is sent, it
            // writes no second one (Http2ConnectionHandler skips a stream whose reset was sent).
            else if (stream != null && stream.id() > 0 && stream.state() == Http2Stream.State.HALF_CLOSED_LOCAL) {
                ctx.writeAndFlush(new DefaultHttp2ResetFrame(Http2Error.NO_ERROR).stream(stream));
            }
        }
        ctx.close(promise);
    }
}
