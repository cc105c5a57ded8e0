package io.sluice.bridge.sse;

import java.nio.charset.StandardCharsets;
import java.util.Locale;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelPromise;
import io.netty.handler.codec.http.HttpHeaders;
import io.netty.handler.codec.http2.DefaultHttp2DataFrame;
import io.netty.handler.codec.http2.DefaultHttp2Headers;
import io.netty.handler.codec.http2.DefaultHttp2HeadersFrame;
import io.netty.handler.codec.http2.Http2Headers;

/**
 * HTTP/2: the head as a HEADERS frame and each event as one DATA frame on the stream's channel (no chunk framing: the
 * frames delimit it); the end is an empty DATA frame that ends the stream. A DATA frame leaves the node only as the
 * client's flow-control windows allow: until then it waits in the connection's flow controller, which the stream's
 * channel does not count, so this output counts what it wrote and is not written yet, for {@code outbound.maxBytes}.
 */
final class Http2Data implements EventOutput {

    private static final ByteBuf EVENT_END = Unpooled.unreleasableBuffer(
            Unpooled.copiedBuffer("\n\n", StandardCharsets.US_ASCII)).asReadOnly();

    private final Channel stream;
    private long queued;

    /** @param stream the HTTP/2 stream's child channel, with nothing left in its pipeline that writes HTTP objects */
    Http2Data(Channel stream) {
        this.stream = stream;
    }

    @Override
    public void head(HttpHeaders extra) {
        Http2Headers headers = new DefaultHttp2Headers()
                .status("200")
                .set("content-type", SseWire.CONTENT_TYPE)
                .set("cache-control", SseWire.CACHE_CONTROL)
                .set("x-accel-buffering", "no");
        extra.forEach(h -> headers.add(h.getKey().toLowerCase(Locale.ROOT), h.getValue()));
        stream.write(new DefaultHttp2HeadersFrame(headers, false), stream.voidPromise());
    }

    @Override
    public void event(byte[] lines, ByteBuf data) {
        ByteBuf event = stream.alloc().compositeBuffer(3)
                .addComponent(true, Unpooled.wrappedBuffer(lines))
                .addComponent(true, data)
                .addComponent(true, EVENT_END.duplicate());
        write(new DefaultHttp2DataFrame(event, false), event.readableBytes());
    }

    @Override
    public ChannelFuture end() {
        ChannelFuture written = write(new DefaultHttp2DataFrame(Unpooled.EMPTY_BUFFER, true), 0);
        stream.flush();
        return written;
    }

    private ChannelFuture write(DefaultHttp2DataFrame frame, int bytes) {
        ChannelPromise promise = stream.newPromise();
        queued += bytes;
        // Done once the frame is on the socket, or failed when the stream ends first (its frames released then).
        promise.addListener((ChannelFutureListener) f -> queued -= bytes);
        return stream.write(frame, promise);
    }

    @Override
    public void flush() {
        stream.flush();
    }

    @Override
    public long queuedBytes() {
        return queued;
    }
}
