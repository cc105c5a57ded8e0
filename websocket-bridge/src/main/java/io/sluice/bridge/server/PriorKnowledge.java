package io.sluice.bridge.server;

import java.util.List;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.codec.ByteToMessageDecoder;
import io.netty.handler.codec.http2.Http2CodecUtil;

/**
 * h2c by prior knowledge on a listener without TLS: a connection whose first 24 bytes are the HTTP/2 client preface
 * ({@code PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n}) gets the HTTP/2 pipeline, anything else the HTTP/1.1 one, decided on the
 * first byte that differs (an HTTP/1.1 request line never starts {@code PRI *}), so a request shorter than the preface
 * is not held. Then this handler leaves the pipeline and what it read goes on to the chosen one. A client that sends a
 * prefix of the preface and stops is cut by the handshake deadline like any silent connection.
 */
final class PriorKnowledge extends ByteToMessageDecoder {

    static final String NAME = "h2c-preface";
    private static final ByteBuf PREFACE = Http2CodecUtil.connectionPrefaceBuf();

    private final Runnable http2;
    private final Runnable http1;

    /** @param http2 adds the HTTP/2 handlers at the end of the pipeline; {@code http1} the HTTP/1.1 ones */
    PriorKnowledge(Runnable http2, Runnable http1) {
        this.http2 = http2;
        this.http1 = http1;
    }

    @Override
    protected void decode(ChannelHandlerContext ctx, ByteBuf in, List<Object> out) {
        int length = Math.min(in.readableBytes(), PREFACE.readableBytes());
        if (!ByteBufUtil.equals(in, in.readerIndex(), PREFACE, PREFACE.readerIndex(), length)) {
            http1.run();
            ctx.pipeline().remove(this);
        }
        else if (length == PREFACE.readableBytes()) {
            http2.run();
            ctx.pipeline().remove(this);
        }
    }
}
