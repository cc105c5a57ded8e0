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
        }
        ctx.close(promise);
    }
}
