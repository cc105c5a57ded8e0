package io.sluice.bridge.sse;

import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelFuture;
import io.netty.handler.codec.http.HttpHeaders;

/**
 * Where an {@link SseWire} puts the stream's bytes: the one thing that differs between HTTP/1.1 (the response head as
 * text and each event as a chunk, written below the HTTP codec) and HTTP/2 (a HEADERS frame and each event as a DATA
 * frame on the stream). The events themselves, their ids, the heartbeat and everything the session decides are the
 * wire's and the same for both. Event loop only.
 */
interface EventOutput {

    /** The 200 response's head: the event-stream headers and {@code extra} (the CORS headers). Written, not flushed. */
    void head(HttpHeaders extra);

    /**
     * One event: {@code lines} (its {@code id:}/{@code event:} lines and the start of its {@code data: } line, or a whole
     * comment or {@code retry:} line without its newline), then {@code data} (released by the output), then the blank
     * line that ends it. Written, not flushed.
     */
    void event(byte[] lines, ByteBuf data);

    /** The end of the response; flushed. */
    ChannelFuture end();

    void flush();

    /** Bytes written and not yet on the socket: what the session counts against {@code outbound.maxBytes}. */
    long queuedBytes();
}
