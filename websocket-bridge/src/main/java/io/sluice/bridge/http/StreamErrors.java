package io.sluice.bridge.http;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.handler.codec.http2.Http2StreamChannel;

/**
 * The end of an HTTP/2 stream's pipeline: an exception no route handled (the client resetting a stream whose request
 * is still being aggregated, a frame the codec refuses) closes the stream and is logged at DEBUG. A client can cause
 * these at will, one per stream: reaching Netty's tail, each was a WARN with its stack trace. A stream that became an
 * event stream handles its own ({@code StreamConnection}); the HTTP/1.1 pipeline ends with the session's handler.
 */
public final class StreamErrors extends ChannelInboundHandlerAdapter {

    public static final String NAME = "stream-errors";
    private static final Logger LOG = LoggerFactory.getLogger(StreamErrors.class);

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
        if (LOG.isDebugEnabled()) {
            int id = ctx.channel() instanceof Http2StreamChannel stream && stream.stream() != null ? stream.stream().id() : -1;
            LOG.debug("{}: HTTP/2 stream {} closed after {}", ctx.channel().parent() == null ? null : ctx.channel().parent().remoteAddress(), id,
                    cause.toString());
        }
        ctx.close();
    }
}
