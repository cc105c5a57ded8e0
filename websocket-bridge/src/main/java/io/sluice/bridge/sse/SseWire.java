package io.sluice.bridge.sse;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.handler.codec.http.HttpHeaders;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.util.concurrent.ScheduledFuture;
import io.sluice.bridge.protocol.ClientRequest;
import io.sluice.bridge.protocol.EncodedMessage;
import io.sluice.bridge.session.Wire;
import io.sluice.bridge.subscription.EndpointTable;

/**
 * The SSE transport: each event is written through an {@link EventOutput} (an HTTP/1.1 chunk, or an HTTP/2 DATA frame)
 * so that a message's pre-encoded WebSocket frame is reused: its JSON is a slice of the frame past the WebSocket header
 * (no copy), between the event's {@code id:}/{@code event:}/{@code data: } lines and its blank line. The id is the
 * stream's whole position after the event ({@link EventIds}), kept here per {@code endpoint} parameter. Event loop only.
 */
final class SseWire implements Wire {

    static final String CONTENT_TYPE = "text/event-stream; charset=utf-8";
    static final String CACHE_CONTROL = "no-cache, no-store";
    private static final ObjectMapper JSON = new ObjectMapper();
    /** How long the browser waits before reconnecting, in milliseconds (the EventSource default is about 3 s). */
    static final int RETRY_MILLIS = 2000;

    private final Channel channel;
    private final EventOutput out;
    private final Duration heartbeat;
    // Per endpoint parameter, in URL order: epoch to the last seq delivered or covered by a gap.
    private final Map<String, LinkedHashMap<String, Long>> positions = new LinkedHashMap<>();
    private boolean wroteSinceBeat;
    private boolean ended;
    private ScheduledFuture<?> beat;

    /** @param patterns the stream's endpoint parameters, in URL order */
    SseWire(Channel channel, EventOutput out, List<String> patterns, Duration heartbeat) {
        this.channel = channel;
        this.out = out;
        this.heartbeat = heartbeat;
        patterns.forEach(p -> positions.put(p, new LinkedHashMap<>()));
    }

    /**
     * Writes the 200 response's head (with {@code extra}, the CORS headers) and the retry hint, and starts the
     * heartbeat.
     */
    void start(HttpHeaders extra) {
        out.head(extra);
        line("retry: " + RETRY_MILLIS);
        out.flush();
        long millis = heartbeat.toMillis();
        beat = channel.eventLoop().scheduleAtFixedRate(this::beat, millis, millis, TimeUnit.MILLISECONDS);
    }

    /** A comment when the stream was quiet for a whole period, so that idle timeouts of proxies keep it open. */
    private void beat() {
        if (!wroteSinceBeat && !ended && channel.isWritable()) {
            line(": heartbeat");
            out.flush();
        }
        wroteSinceBeat = false;
    }
    @Override
    public String transport() {
        return "sse";
    }

    @Override
    public void subscribed(String pattern, List<ClientRequest.Position> recover, List<ClientRequest.Position> now) {
        LinkedHashMap<String, Long> at = positions.get(pattern);
        if (at == null) {
            return;
        }
        at.clear();
        // Where the node is for partitions the client did not name (live from there on), where the client is for those
        // it did (recovered messages and gaps move it on from there).
        now.forEach(p -> at.put(p.epoch(), p.seq()));
        recover.forEach(p -> at.put(p.epoch(), p.seq()));
    }

    @Override
    public void message(EncodedMessage message, ByteBuf frame, boolean delta, String pattern) {
        advance(message, pattern);
        String event = delta ? "event: delta\n" : message.notice() ? "event: gap\n" : "";
        String head = "id: " + EventIds.encode(new ArrayList<>(positions.values())) + "\n" + event + "data: ";
        int start = frame.readerIndex();
        int length = frame.getByte(start + 1) & 0x7f;
        int header = length < 126 ? 2 : length == 126 ? 4 : 10;
        ByteBuf json = frame.retainedSlice(start + header, frame.readableBytes() - header);
        writeChunk(head, oneLine(json));
    }

    /**
     * The JSON on one line, as a {@code data:} field must be: a record's JSON is carried byte for byte, and a raw CR or
     * LF in it (JSON allows them only as whitespace between tokens; inside strings they are escaped) would end the
     * field, so the client would see a truncated event and lines that are no field. Each is replaced by a space, which
     * is the same JSON. Only such a message costs a copy (for this stream): the shared frame is left as it is.
     */
    static ByteBuf oneLine(ByteBuf json) {
        if (json.forEachByte(b -> b != '\r' && b != '\n') < 0) {
            return json;
        }
        try {
            ByteBuf copy = Unpooled.buffer(json.readableBytes());
            json.forEachByte(b -> {
                copy.writeByte(b == '\r' || b == '\n' ? ' ' : b);
                return true;
            });
            return copy;
        }
        finally {
            json.release();
        }
    }

    private void advance(EncodedMessage message, String pattern) {
        String epoch = message.epoch();
        if (epoch == null) {
            return;
        }
        long seq = message.notice() ? message.gapTo() : message.seq();
        for (Map.Entry<String, LinkedHashMap<String, Long>> e : positions.entrySet()) {
            if (pattern == null ? EndpointTable.matches(e.getKey(), message.endpoint()) : e.getKey().equals(pattern)) {
                if (message.notice() && seq < 0) {
                    // The epoch itself is gone: nothing of it can be recovered, so it is no longer part of the position.
                    e.getValue().remove(epoch);
                }
                else {
                    e.getValue().merge(epoch, seq, Math::max);
                }
            }
        }
    }

    @Override
    public void control(byte[] json) {
        if (ended) {
            return;
        }
        writeChunk("event: " + type(json) + "\ndata: ", Unpooled.wrappedBuffer(json));
        out.flush();
    }

    @Override
    public void flush() {
        out.flush();
    }

    @Override
    public long queuedBytes() {
        return out.queuedBytes();
    }

    @Override
    public ChannelFuture close(int code, String reason) {
        ObjectNode close = JSON.createObjectNode().put("type", "close").put("code", code).put("reason", reason);
        byte[] json;
        try {
            json = JSON.writeValueAsBytes(close);
        }
        catch (Exception e) {
            throw new IllegalStateException(e);
        }
        writeChunk("event: close\ndata: ", Unpooled.wrappedBuffer(json));
        ended = true;
        stop();
        return out.end();
    }

    /** The connection is gone: no more heartbeats. */
    void stop() {
        if (beat != null) {
            beat.cancel(false);
            beat = null;
        }
    }

    private void writeChunk(String head, ByteBuf data) {
        out.event(head.getBytes(StandardCharsets.UTF_8), data);
        wroteSinceBeat = true;
    }

    /** A whole line and the blank line after it (a comment, the retry hint). */
    private void line(String line) {
        out.event(line.getBytes(StandardCharsets.UTF_8), Unpooled.EMPTY_BUFFER);
    }

    /** The event name of a reply: its {@code type}, which every reply has first ({@code {"type":"..."}}). */
    private static String type(byte[] json) {
        String prefix = "{\"type\":\"";
        String start = new String(json, 0, Math.min(json.length, 40), StandardCharsets.UTF_8);
        if (start.startsWith(prefix)) {
            int end = start.indexOf('"', prefix.length());
            if (end > 0) {
                return start.substring(prefix.length(), end);
            }
        }
        return "message";
    }
}
