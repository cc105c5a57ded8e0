package io.sluice.bridge.sse;

import java.nio.charset.StandardCharsets;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelOutboundBuffer;
import io.netty.handler.codec.http.HttpHeaders;

/**
 * HTTP/1.1: the head as text and each event as one chunk, written at the {@code frames} context below the HTTP codec
 * (which the stream replaced), so that a message's JSON, a slice of its shared WebSocket frame, is written as it is.
 */
final class Http1Chunks implements EventOutput {

    private static final ByteBuf EVENT_END = Unpooled.unreleasableBuffer(
            Unpooled.copiedBuffer("\n\n\r\n", StandardCharsets.US_ASCII)).asReadOnly();
    private static final byte[] LAST_CHUNK = "0\r\n\r\n".getBytes(StandardCharsets.US_ASCII);
    private static final String HEAD = "HTTP/1.1 200 OK\r\n"
            + "Content-Type: " + SseWire.CONTENT_TYPE + "\r\n"
            + "Cache-Control: " + SseWire.CACHE_CONTROL + "\r\n"
            + "X-Accel-Buffering: no\r\n"
            + "Transfer-Encoding: chunked\r\n";

    private final ChannelHandlerContext frames;

    Http1Chunks(ChannelHandlerContext frames) {
        this.frames = frames;
    }

    @Override
    public void head(HttpHeaders extra) {
        StringBuilder head = new StringBuilder(HEAD);
        // Values came through Netty's header parser or from configuration, so they hold no CR or LF.
        extra.forEach(h -> head.append(h.getKey()).append(": ").append(h.getValue()).append("\r\n"));
        head.append("\r\n");
        frames.write(Unpooled.copiedBuffer(head, StandardCharsets.US_ASCII), frames.voidPromise());
    }

    @Override
    public void event(byte[] lines, ByteBuf data) {
        int size = lines.length + data.readableBytes() + 2;
        ByteBuf prefix = frames.alloc().buffer(lines.length + 10);
        prefix.writeCharSequence(Integer.toHexString(size), StandardCharsets.US_ASCII);
        prefix.writeByte('\r').writeByte('\n').writeBytes(lines);
        frames.write(prefix, frames.voidPromise());
        frames.write(data, frames.voidPromise());
        frames.write(EVENT_END.duplicate(), frames.voidPromise());
    }

    @Override
    public ChannelFuture end() {
        return frames.writeAndFlush(Unpooled.wrappedBuffer(LAST_CHUNK));
    }

    @Override
    public void flush() {
        frames.flush();
    }

    @Override
    public long queuedBytes() {
        ChannelOutboundBuffer buffer = frames.channel().unsafe().outboundBuffer();
        return buffer == null ? 0 : buffer.totalPendingWriteBytes();
    }
}
