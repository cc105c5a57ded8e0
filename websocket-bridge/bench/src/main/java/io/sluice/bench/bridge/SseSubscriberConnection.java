package io.sluice.bench.bridge;

import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Locale;

import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.codec.ByteToMessageDecoder;

/**
 * One bench subscriber as a Server-Sent Events stream ({@code GET {path}/sse?endpoint=...}), as its whole pipeline,
 * the SSE counterpart of {@link SubscriberConnection}: it sends the request, checks the {@code 200}, then undoes the
 * chunked transfer coding and reads the {@code text/event-stream} in place. Each event is dispatched at its blank
 * line: {@code message}s (no {@code event:} line) and {@code delta}s go to the stamp readers with the bounds of their
 * {@code data} JSON, which is the WebSocket frame's JSON byte for byte; other events, rare, are read as text.
 *
 * <p>The bridge writes each event as one chunk, so an event usually arrives whole and is parsed where it lies; only
 * the tail of an event split across reads is copied, into a buffer this connection holds until the event is complete.
 * That buffer is bounded: a line longer than {@code maxLineBytes}, or an unfinished event longer than twice that, is
 * an error that closes the connection (a broken or hostile server must not make the load generator hold without
 * bound). Every body byte (chunk framing, ids, heartbeats included) counts as received on the wire.
 */
final class SseSubscriberConnection extends ByteToMessageDecoder {

    private static final int MAX_RESPONSE_HEAD = 8192;
    /** A chunk-size line: hex digits and CRLF; the bridge sends no chunk extensions. */
    private static final int MAX_CHUNK_SIZE_LINE = 32;
    /** What a refused stream's answer may contribute to the problem reported. */
    private static final int MAX_REFUSAL_TEXT = 300;
    private static final byte[] HEAD_END = "\r\n\r\n".getBytes(StandardCharsets.US_ASCII);
    private static final byte[] DATA = "data: ".getBytes(StandardCharsets.US_ASCII);
    private static final byte[] EVENT = "event: ".getBytes(StandardCharsets.US_ASCII);
    private static final byte[] DELTA = "delta".getBytes(StandardCharsets.US_ASCII);
    private static final byte[] SUBSCRIBED = "subscribed".getBytes(StandardCharsets.US_ASCII);
    private static final byte[] CLOSE = "close".getBytes(StandardCharsets.US_ASCII);

    private enum State { HEAD, CHUNK_SIZE, CHUNK_DATA, CHUNK_END, DONE }

    private final BenchSubscribers run;
    private final int endpoint;
    private final int maxLineBytes;
    private State state = State.HEAD;
    private long chunkLeft;
    /** The start of an event split across reads or chunks; null while there is none (almost always). */
    private ByteBuf pending;
    private boolean subscribed;

    SseSubscriberConnection(BenchSubscribers run, int endpoint, int maxLineBytes) {
        this.run = run;
        this.endpoint = endpoint;
        this.maxLineBytes = maxLineBytes;
    }

    @Override
    public void channelActive(ChannelHandlerContext ctx) throws Exception {
        ctx.writeAndFlush(run.sseRequest(endpoint));
        super.channelActive(ctx);
    }

    @Override
    protected void decode(ChannelHandlerContext ctx, ByteBuf in, List<Object> out) {
        if (state == State.HEAD && !head(ctx, in)) {
            return;
        }
        while (in.isReadable() && state != State.DONE && ctx.channel().isActive()) {
            switch (state) {
                case CHUNK_SIZE -> {
                    if (!chunkSize(ctx, in)) {
                        return;
                    }
                }
                case CHUNK_DATA -> {
                    int n = (int) Math.min(chunkLeft, in.readableBytes());
                    body(ctx, in, in.readerIndex(), n);
                    run.onWireBytes(n);
                    in.skipBytes(n);
                    chunkLeft -= n;
                    if (chunkLeft == 0) {
                        state = State.CHUNK_END;
                    }
                }
                case CHUNK_END -> {
                    if (in.readableBytes() < 2) {
                        return;
                    }
                    if (in.getByte(in.readerIndex()) != '\r' || in.getByte(in.readerIndex() + 1) != '\n') {
                        fail(ctx, "SSE stream: no CRLF after a chunk");
                        return;
                    }
                    in.skipBytes(2);
                    run.onWireBytes(2);
                    state = State.CHUNK_SIZE;
                }
                default -> in.skipBytes(in.readableBytes());
            }
        }
        if (state == State.DONE) {
            in.skipBytes(in.readableBytes());
        }
    }

    private boolean head(ChannelHandlerContext ctx, ByteBuf in) {
        int end = LatencyStamp.indexOf(in, in.readerIndex(), in.writerIndex(), HEAD_END);
        if (end < 0) {
            if (in.readableBytes() > MAX_RESPONSE_HEAD) {
                fail(ctx, "no end of the HTTP response head in " + MAX_RESPONSE_HEAD + " bytes");
            }
            return false;
        }
        String head = in.toString(in.readerIndex(), end - in.readerIndex(), StandardCharsets.US_ASCII);
        in.readerIndex(end + 4);
        String status = head.lines().findFirst().orElse("");
        if (!status.startsWith("HTTP/1.1 200")) {
            // The refusal's JSON body usually came with the head; enough of it to say why.
            String body = in.toString(in.readerIndex(), Math.min(in.readableBytes(), MAX_REFUSAL_TEXT), StandardCharsets.UTF_8);
            fail(ctx, "stream refused: " + status + (body.isEmpty() ? "" : " " + body));
            return false;
        }
        if (!head.toLowerCase(Locale.ROOT).contains("\r\ntransfer-encoding: chunked")) {
            fail(ctx, "stream answered without Transfer-Encoding: chunked");
            return false;
        }
        state = State.CHUNK_SIZE;
        return true;
    }

    private boolean chunkSize(ChannelHandlerContext ctx, ByteBuf in) {
        int from = in.readerIndex();
        int eol = in.indexOf(from, Math.min(in.writerIndex(), from + MAX_CHUNK_SIZE_LINE), (byte) '\n');
        if (eol < 0) {
            if (in.readableBytes() >= MAX_CHUNK_SIZE_LINE) {
                fail(ctx, "SSE stream: a chunk-size line over " + MAX_CHUNK_SIZE_LINE + " bytes");
            }
            return false;
        }
        int digitsEnd = eol > from && in.getByte(eol - 1) == '\r' ? eol - 1 : eol;
        long size = 0;
        // At most 15 hex digits: the size can neither overflow nor be negative.
        if (digitsEnd == from || digitsEnd - from > 15) {
            fail(ctx, "SSE stream: a malformed chunk size");
            return false;
        }
        for (int i = from; i < digitsEnd; i++) {
            int digit = Character.digit(in.getByte(i), 16);
            if (digit < 0) {
                fail(ctx, "SSE stream: a malformed chunk size");
                return false;
            }
            size = size * 16 + digit;
        }
        run.onWireBytes(eol + 1 - from);
        in.readerIndex(eol + 1);
        if (size == 0) {
            // The last chunk: the bridge ended the stream (after a close event, which was reported).
            state = State.DONE;
            ctx.close();
        } else {
            chunkLeft = size;
            state = State.CHUNK_DATA;
        }
        return true;
    }

    /** Event-stream bytes {@code [from, from + length)} of {@code buf}, which this call does not consume. */
    private void body(ChannelHandlerContext ctx, ByteBuf buf, int from, int length) {
        if (pending == null) {
            int done = events(ctx, buf, from, from + length);
            if (done >= 0 && done < from + length && bounded(ctx, buf, done, from + length)) {
                pending = ctx.alloc().buffer(from + length - done);
                pending.writeBytes(buf, done, from + length - done);
            }
            return;
        }
        pending.writeBytes(buf, from, length);
        int done = events(ctx, pending, pending.readerIndex(), pending.writerIndex());
        if (done < 0) {
            return;
        }
        pending.readerIndex(done);
        if (!pending.isReadable()) {
            pending.release();
            pending = null;
        } else if (bounded(ctx, pending, done, pending.writerIndex())) {
            pending.discardReadBytes();
        }
    }

    /** Whether an unfinished event {@code [from, to)} is within the limits; if not, the connection fails. */
    private boolean bounded(ChannelHandlerContext ctx, ByteBuf buf, int from, int to) {
        int lastEol = buf.indexOf(to, from, (byte) '\n');
        if (to - (lastEol < 0 ? from : lastEol + 1) > maxLineBytes) {
            fail(ctx, "SSE stream: a line over " + maxLineBytes + " bytes");
            return false;
        }
        if (to - from > 2 * maxLineBytes) {
            fail(ctx, "SSE stream: an event over " + 2 * maxLineBytes + " bytes without its blank line");
            return false;
        }
        return true;
    }

    /**
     * Dispatches every complete event in {@code [from, to)}; returns where the first incomplete one starts ({@code to}
     * when none), or -1 when the connection failed.
     */
    private int events(ChannelHandlerContext ctx, ByteBuf buf, int from, int to) {
        int eventStart = from;
        int lineStart = from;
        int dataStart = -1;
        int dataEnd = -1;
        int nameStart = -1;
        int nameEnd = -1;
        while (lineStart < to) {
            int eol = buf.indexOf(lineStart, to, (byte) '\n');
            if (eol < 0) {
                break;
            }
            int lineEnd = eol > lineStart && buf.getByte(eol - 1) == '\r' ? eol - 1 : eol;
            if (lineEnd - lineStart > maxLineBytes) {
                fail(ctx, "SSE stream: a line over " + maxLineBytes + " bytes");
                return -1;
            }
            if (lineEnd == lineStart) {
                if (dataStart >= 0 && !dispatch(ctx, buf, nameStart, nameEnd, dataStart, dataEnd - dataStart)) {
                    return -1;
                }
                dataStart = dataEnd = nameStart = nameEnd = -1;
                eventStart = eol + 1;
            } else if (startsWith(buf, lineStart, lineEnd, DATA)) {
                if (dataStart >= 0) {
                    // The bridge's data is one line of JSON; a second one would be a protocol change the stamp readers do not follow.
                    fail(ctx, "SSE stream: an event with more than one data line");
                    return -1;
                }
                dataStart = lineStart + DATA.length;
                dataEnd = lineEnd;
            } else if (startsWith(buf, lineStart, lineEnd, EVENT)) {
                nameStart = lineStart + EVENT.length;
                nameEnd = lineEnd;
            }
            // id:, retry: and comments (heartbeats) need nothing: the bench does not resume.
            lineStart = eol + 1;
        }
        return eventStart;
    }

    /** One event; false when it ended the connection. */
    private boolean dispatch(ChannelHandlerContext ctx, ByteBuf buf, int nameStart, int nameEnd, int start, int length) {
        if (nameStart < 0) {
            run.onMessage(buf, start, length);
            return true;
        }
        if (equalsAscii(buf, nameStart, nameEnd, DELTA)) {
            run.onDelta(buf, start, length);
            return true;
        }
        String json = buf.toString(start, length, StandardCharsets.UTF_8);
        if (equalsAscii(buf, nameStart, nameEnd, SUBSCRIBED)) {
            subscribed = true;
            run.onSubscribed();
        } else if (equalsAscii(buf, nameStart, nameEnd, CLOSE)) {
            run.onServerClose(closeCode(json));
            ctx.close();
            return false;
        } else {
            run.onOtherMessage(json);
        }
        return true;
    }

    /** The code of a {@code close} event's JSON ({@code {"type":"close","code":4008,...}}), or 1005 (none) if unreadable. */
    static int closeCode(String json) {
        int at = json.indexOf("\"code\":");
        if (at < 0) {
            return 1005;
        }
        int i = at + 7;
        int code = 0;
        int digits = 0;
        while (i < json.length() && digits < 5 && Character.isDigit(json.charAt(i))) {
            code = code * 10 + (json.charAt(i++) - '0');
            digits++;
        }
        return digits == 0 ? 1005 : code;
    }

    private static boolean startsWith(ByteBuf buf, int from, int to, byte[] prefix) {
        if (to - from < prefix.length) {
            return false;
        }
        for (int i = 0; i < prefix.length; i++) {
            if (buf.getByte(from + i) != prefix[i]) {
                return false;
            }
        }
        return true;
    }

    private static boolean equalsAscii(ByteBuf buf, int from, int to, byte[] text) {
        return to - from == text.length && startsWith(buf, from, to, text);
    }

    private void fail(ChannelHandlerContext ctx, String why) {
        state = State.DONE;
        run.onError(why);
        ctx.close();
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) throws Exception {
        run.onClosed(subscribed);
        super.channelInactive(ctx);
    }

    @Override
    protected void handlerRemoved0(ChannelHandlerContext ctx) {
        if (pending != null) {
            pending.release();
            pending = null;
        }
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
        fail(ctx, cause.toString());
    }
}
