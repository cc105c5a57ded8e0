package io.sluice.proxy.codec;

import org.slf4j.LoggerFactory;

import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelOutboundHandlerAdapter;
import io.netty.channel.ChannelPromise;
import io.sluice.logging.RateLimitedLog;

/**
 * Turns frames back into bytes on either side of the proxy: decoded messages are serialised, opaque ones
 * pass through as the buffers they already are.
 *
 * <p>A message that cannot be serialised (a filter set a field beyond what the protocol can carry) closes the
 * connection: left to Netty, the write would fail quietly and the peer would wait for a response that never comes,
 * with later responses arriving in its place.</p>
 */
@ChannelHandler.Sharable
public final class FrameEncoder extends ChannelOutboundHandlerAdapter {

    public static final FrameEncoder INSTANCE = new FrameEncoder();

    private FrameEncoder() {
    }

    private static final RateLimitedLog UNENCODABLE =
            new RateLimitedLog(LoggerFactory.getLogger(FrameEncoder.class));

    @Override
    public void write(ChannelHandlerContext ctx, Object msg, ChannelPromise promise) {
        try {
            encode(ctx, msg, promise);
        } catch (RuntimeException e) {
            UNENCODABLE.log("{}: closing the connection: a {} could not be serialised ({})", ctx.channel().remoteAddress(),
                    msg.getClass().getSimpleName(), e.toString());
            promise.tryFailure(e);
            ctx.close();
        }
    }

    private void encode(ChannelHandlerContext ctx, Object msg, ChannelPromise promise) {
        if (msg instanceof OpaqueResponse response) {
            ctx.write(response.takeFrame(), promise);
        } else if (msg instanceof DecodedResponse response) {
            ByteBuf bytes;
            try {
                bytes = MessageCodec.encode(ctx.alloc(), response.header(), response.apiKey().responseHeaderVersion(response.apiVersion()),
                        response.body(), response.apiVersion());
            } finally {
                response.release();
            }
            ctx.write(bytes, promise);
        } else if (msg instanceof DecodedRequest request) {
            ByteBuf bytes;
            try {
                bytes = MessageCodec.encode(ctx.alloc(), request.header(), request.apiKey().requestHeaderVersion(request.apiVersion()),
                        request.body(), request.apiVersion());
            } finally {
                request.release();
            }
            ctx.write(bytes, promise);
        } else {
            ctx.write(msg, promise);
        }
    }
}
