package io.sluice.bridge.protocol;

import com.fasterxml.jackson.databind.JsonNode;
import org.apache.kafka.common.header.Header;

import io.netty.buffer.ByteBuf;

/**
 * One Kafka record (or one notice) as a complete, unmasked WebSocket text frame, header included, encoded once and
 * written to every subscriber as a {@code retainedDuplicate()} of the same bytes. Reference counted through its
 * frames: whoever holds an {@code EncodedMessage} holds one reference and releases it when done.
 *
 * <p>{@code seq} is the Kafka offset and {@code epoch} names the topic-partition and its history; notices (gaps,
 * conflation reports) have {@code seq} -1 and are never cached or conflated.
 */
public final class EncodedMessage {

    private static final Header[] NO_HEADERS = new Header[0];

    private final String endpoint;
    private final String epoch;
    private final int partition;
    private final long seq;
    private final long timestamp;
    private final ByteBuf frame;
    private final int payloadBytes;
    // What subscription filters read besides the value (null for notices): the record's key as text, its headers.
    private final String recordKey;
    private final Header[] headers;
    private volatile JsonNode json;
    // Measured when a delta is first considered against or towards this message; reader thread only.
    private JsonShape shape;
    private ByteBuf deltaFrame;
    private long deltaBase = -1;
    // A gap notice: the last seq of {@code epoch} it reports lost (-1: none, or the epoch itself is gone).
    private long gapTo = -1;

    EncodedMessage(String endpoint, String epoch, int partition, long seq, long timestamp, ByteBuf frame, JsonNode json,
                   int payloadBytes, String recordKey, Header[] headers) {
        this.recordKey = recordKey;
        this.headers = headers == null ? NO_HEADERS : headers;
        this.endpoint = endpoint;
        this.epoch = epoch;
        this.partition = partition;
        this.seq = seq;
        this.timestamp = timestamp;
        this.frame = frame;
        this.json = json;
        this.payloadBytes = payloadBytes;
    }

    public String endpoint() {
        return endpoint;
    }

    public String epoch() {
        return epoch;
    }

    public int partition() {
        return partition;
    }

    public long seq() {
        return seq;
    }

    /** The Kafka record's timestamp, in epoch milliseconds. */
    public long timestamp() {
        return timestamp;
    }

    /** The Kafka record's key decoded as UTF-8, or null for a record without a key (and for notices). */
    public String recordKey() {
        return recordKey;
    }

    /** The Kafka record's headers, in order; do not modify. */
    public Header[] headers() {
        return headers;
    }

    /**
     * For a gap notice made by {@link MessageEncoder#gap}, the last seq of {@link #epoch()} it reports lost (the client's
     * position after it); -1 for anything else, and for a gap of an epoch that is gone.
     */
    public long gapTo() {
        return gapTo;
    }

    EncodedMessage coveringUpTo(long toSeq) {
        gapTo = toSeq;
        return this;
    }

    public boolean notice() {
        return seq < 0;
    }

    /** The payload parsed, when it is a JSON object or array and delta delivery may need it; otherwise null. */
    public JsonNode json() {
        return json;
    }

    /** The record value's length in bytes (0 for a tombstone or a notice). */
    public int payloadBytes() {
        return payloadBytes;
    }

    /** The shape of {@link #json()}, measured once. Only for the reader thread, while the JSON is still held. */
    JsonShape shape() {
        if (shape == null) {
            shape = JsonShape.of(json);
        }
        return shape;
    }

    /** Forgets the parsed payload once no later delta can be computed against it, to save memory. */
    public void dropJson() {
        json = null;
    }

    /** The full message frame. Do not modify: it is shared. */
    public ByteBuf frame() {
        return frame;
    }

    /** The JSON Patch frame against the endpoint's message at {@link #deltaBase()}, or null. */
    public ByteBuf deltaFrame() {
        return deltaFrame;
    }

    public long deltaBase() {
        return deltaBase;
    }

    /** Set once, by the reader thread, before the message is handed to any subscriber. */
    public void attachDelta(ByteBuf delta, long base) {
        if (deltaFrame != null) {
            throw new IllegalStateException("delta already attached");
        }
        deltaFrame = delta;
        deltaBase = base;
    }

    /** Bytes this message holds in memory (both frames), for outbound limits. */
    public int bytes() {
        return frame.readableBytes() + (deltaFrame == null ? 0 : deltaFrame.readableBytes());
    }

    public EncodedMessage retain() {
        frame.retain();
        if (deltaFrame != null) {
            deltaFrame.retain();
        }
        return this;
    }

    public void release() {
        if (deltaFrame != null) {
            deltaFrame.release();
        }
        frame.release();
    }
}
