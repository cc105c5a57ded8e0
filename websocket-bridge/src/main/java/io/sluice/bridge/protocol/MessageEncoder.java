package io.sluice.bridge.protocol;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CharsetDecoder;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.EnumSet;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.StreamReadConstraints;
import com.fasterxml.jackson.core.io.JsonStringEncoder;
import com.fasterxml.jackson.databind.JsonNode;
import com.flipkart.zjsonpatch.DiffFlags;
import com.fasterxml.jackson.databind.node.NullNode;
import com.flipkart.zjsonpatch.JsonDiff;
import org.apache.kafka.common.header.Header;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.ByteBufInputStream;
import io.sluice.bridge.config.DeltaConfig;
import io.sluice.format.ExactJson;

/**
 * Writes messages straight into WebSocket frames: the JSON text after a reserved header slot, then the header in front
 * of it once the length is known. Server frames are never masked, so the bytes are identical for every subscriber and
 * are encoded once per record, not once per delivery. Not thread-safe: one encoder per thread.
 */
public final class MessageEncoder {

    // FIN + opcode + 8-byte extended length: the largest header a server frame needs.
    private static final int HEADER_SLOT = 10;
    private static final byte FIN_TEXT = (byte) 0x81;
    // Strict on purpose: a value is embedded raw only when it is exactly one JSON object or array, with unique keys
    // and nothing after it. A lenient parse that stops after the first value would let text such as
    // {"a":1},"endpoint":"/x","seq":9 close the payload early and add keys to the message around it.
    // Exact numbers as well (ExactJson): the tree kept for filters and deltas, and the one read back from a cached
    // frame for recovery, must hold the numbers a format's codec would, or a filter selects differently in each.
    // Jackson's default nesting bound, as before: a value too deep for it is carried as text.
    private static final ExactJson JSON = ExactJson.withDepth(StreamReadConstraints.DEFAULT_MAX_DEPTH);

    // Without move and copy detection: matching every removal against every addition is quadratic in the number of
    // operations, which object keys (not bounded by the array lengths in JsonShape.diffWork) can make large. Patches
    // then hold only add, remove and replace. Removals without the removed value, as before.
    private static final EnumSet<DiffFlags> DIFF_FLAGS = EnumSet.of(DiffFlags.OMIT_VALUE_ON_REMOVE,
            DiffFlags.OMIT_MOVE_OPERATION, DiffFlags.OMIT_COPY_OPERATION);

    private final ByteBufAllocator allocator;
    private final CharsetDecoder utf8 = StandardCharsets.UTF_8.newDecoder()
            .onMalformedInput(CodingErrorAction.REPORT)
            .onUnmappableCharacter(CodingErrorAction.REPORT);

    public MessageEncoder(ByteBufAllocator allocator) {
        this.allocator = allocator;
    }

    public ByteBufAllocator allocator() {
        return allocator;
    }

    /** A Kafka record on an endpoint. {@code value} null is a tombstone. */
    public EncodedMessage message(String endpoint, String epoch, int partition, long seq, long timestamp, byte[] value) {
        return message(endpoint, epoch, partition, seq, timestamp, value, null, null);
    }

    /** A Kafka record on an endpoint, with the key (as text, null for none) and headers that filters may read. */
    public EncodedMessage message(String endpoint, String epoch, int partition, long seq, long timestamp, byte[] value,
                                  String recordKey, Header[] headers) {
        Payload payload = classify(value);
        ByteBuf buf = envelope(allocator, "message", endpoint, epoch, seq, timestamp, payload.length());
        ascii(buf, ",\"format\":\"").writeCharSequence(payload.format.wireName(), StandardCharsets.US_ASCII);
        ascii(buf, "\",\"payload\":");
        payload.writeTo(buf);
        buf.writeByte('}');
        return new EncodedMessage(endpoint, epoch, partition, seq, timestamp, frame(buf), payload.json,
                value == null ? 0 : value.length, recordKey, headers);
    }

    /**
     * The JSON Patch (RFC 6902) that turns the endpoint's previous payload into this one, as a {@code delta} frame, or
     * null when either payload is not a JSON object or array, or when the diff could cost more than {@code limits}
     * allow: then the message goes whole. The limits are checked on the parsed values before diffing (sizes first,
     * then the worst-case work from their shapes, see {@link JsonShape#diffWork}), so a diff that is attempted is
     * bounded however the two values differ.
     */
    public ByteBuf delta(EncodedMessage previous, EncodedMessage current, DeltaConfig limits) {
        if (previous == null || previous.json() == null || current.json() == null) {
            return null;
        }
        if (previous.payloadBytes() > limits.maxValueBytes() || current.payloadBytes() > limits.maxValueBytes()) {
            return null;
        }
        if (JsonShape.diffWork(previous.shape(), current.shape()) > limits.maxDiffWork()) {
            return null;
        }
        JsonNode patch = JsonDiff.asJson(previous.json(), current.json(), DIFF_FLAGS);
        byte[] patchBytes;
        try {
            patchBytes = JSON.mapper().writeValueAsBytes(patch);
        }
        catch (JsonProcessingException e) {
            return null;
        }
        ByteBuf buf = envelope(allocator, "delta", current.endpoint(), current.epoch(), current.seq(), current.timestamp(),
                patchBytes.length);
        ascii(buf, ",\"base\":").writeCharSequence(Long.toString(previous.seq()), StandardCharsets.US_ASCII);
        ascii(buf, ",\"patch\":");
        buf.writeBytes(patchBytes);
        buf.writeByte('}');
        return frame(buf);
    }

    /** A notice (gap, conflation report) as a frame that can queue with messages; seq -1. Thread-safe. */
    public static EncodedMessage notice(ByteBufAllocator allocator, String endpoint, byte[] json) {
        ByteBuf buf = allocator.directBuffer(HEADER_SLOT + json.length);
        buf.writerIndex(HEADER_SLOT);
        buf.writeBytes(json);
        return new EncodedMessage(endpoint, null, -1, -1, 0, frame(buf), null, 0, null, null);
    }

    /**
     * A {@code gap} notice (docs/bridge-protocol.md) that also carries, for transports that track positions (SSE ids),
     * the epoch and the last seq it covers. Thread-safe.
     */
    public static EncodedMessage gap(ByteBufAllocator allocator, String subscription, String epoch, long fromSeq, long toSeq,
                                     String reason) {
        byte[] json = ServerMessages.gap(subscription, epoch, fromSeq, toSeq, reason);
        ByteBuf buf = allocator.directBuffer(HEADER_SLOT + json.length);
        buf.writerIndex(HEADER_SLOT);
        buf.writeBytes(json);
        return new EncodedMessage(subscription, epoch, -1, -1, 0, frame(buf), null, 0, null, null).coveringUpTo(toSeq);
    }

    /**
     * A record whose value its topic's format decoded (docs/bridge-formats.md): {@code format: json} with the decoded
     * JSON as payload, which is kept for filters and deltas. {@code valueBytes} is the record value's length.
     */
    public EncodedMessage decoded(String endpoint, String epoch, int partition, long seq, long timestamp, JsonNode value,
                                  int valueBytes, String recordKey, Header[] headers) {
        // Deltas are computed on objects and arrays only, as for JSON values carried as they are.
        return jsonMessage(allocator, endpoint, epoch, partition, seq, timestamp, value, value.isContainerNode() ? value : null,
                valueBytes, recordKey, headers);
    }

    /**
     * The message with its payload replaced by a projection of it (a JSON object): the frame a group of subscriptions
     * with one field list receives. The projected tree is kept for deltas. Thread-safe.
     */
    public static EncodedMessage projected(ByteBufAllocator allocator, EncodedMessage source, JsonNode projection) {
        return jsonMessage(allocator, source.endpoint(), source.epoch(), source.partition(), source.seq(), source.timestamp(),
                projection, projection, 0, source.recordKey(), source.headers());
    }

    /**
     * A {@code message} whose payload is a JSON tree written here (a decoded value, a projection); {@code kept} is the
     * tree kept for filters and deltas (null: none), {@code valueBytes} the record value's length if larger.
     */
    private static EncodedMessage jsonMessage(ByteBufAllocator allocator, String endpoint, String epoch, int partition, long seq,
                                              long timestamp, JsonNode tree, JsonNode kept, int valueBytes, String recordKey,
                                              Header[] headers) {
        byte[] payload;
        try {
            payload = JSON.mapper().writeValueAsBytes(tree);
        }
        catch (JsonProcessingException e) {
            throw new IllegalStateException("a JSON tree is plain JSON", e);
        }
        ByteBuf buf = envelope(allocator, "message", endpoint, epoch, seq, timestamp, payload.length);
        ascii(buf, ",\"format\":\"json\",\"payload\":");
        buf.writeBytes(payload);
        buf.writeByte('}');
        return new EncodedMessage(endpoint, epoch, partition, seq, timestamp, frame(buf), kept, Math.max(valueBytes, payload.length),
                recordKey, headers);
    }

    /**
     * A frame buffer holding {@code {"type":TYPE,"endpoint":...,"epoch":...,"seq":...,"timestamp":...} so far, after the
     * reserved header slot, with room for {@code bodyBytes} more; the caller writes the rest and closes the object.
     */
    private static ByteBuf envelope(ByteBufAllocator allocator, String type, String endpoint, String epoch, long seq,
                                    long timestamp, int bodyBytes) {
        ByteBuf buf = allocator.directBuffer(HEADER_SLOT + 128 + endpoint.length() + bodyBytes);
        buf.writerIndex(HEADER_SLOT);
        ascii(buf, "{\"type\":\"").writeCharSequence(type, StandardCharsets.US_ASCII);
        ascii(buf, "\",\"endpoint\":");
        quoted(buf, endpoint);
        ascii(buf, ",\"epoch\":");
        quoted(buf, epoch);
        ascii(buf, ",\"seq\":").writeCharSequence(Long.toString(seq), StandardCharsets.US_ASCII);
        ascii(buf, ",\"timestamp\":").writeCharSequence(Long.toString(timestamp), StandardCharsets.US_ASCII);
        return buf;
    }

    /**
     * The {@code payload} of a message frame as the client reads it: the JSON object or array, the text, the base64
     * string, or null for a tombstone. For filters over messages whose parsed value was not kept (text and binary
     * values, and cached messages whose tree was dropped).
     */
    public static JsonNode payloadOf(EncodedMessage message) {
        JsonNode json = message.json();
        if (json != null) {
            return json;
        }
        ByteBuf frame = message.frame();
        int start = frame.readerIndex();
        int length = frame.getByte(start + 1) & 0x7f;
        int header = length < 126 ? 2 : length == 126 ? 4 : 10;
        try (ByteBufInputStream in = new ByteBufInputStream(frame.duplicate().readerIndex(start + header))) {
            JsonNode payload = JSON.read(in).get("payload");
            return payload == null ? NullNode.getInstance() : payload;
        }
        catch (IOException e) {
            throw new IllegalStateException("a message frame is the JSON this encoder wrote", e);
        }
    }

    /** Fills in the header in front of the body and points the reader index at it. */
    private static ByteBuf frame(ByteBuf buf) {
        int length = buf.writerIndex() - HEADER_SLOT;
        int start;
        if (length < 126) {
            start = HEADER_SLOT - 2;
            buf.setByte(start + 1, length);
        }
        else if (length < 65536) {
            start = HEADER_SLOT - 4;
            buf.setByte(start + 1, 126);
            buf.setShort(start + 2, length);
        }
        else {
            start = 0;
            buf.setByte(1, 127);
            buf.setLong(2, length);
        }
        buf.setByte(start, FIN_TEXT);
        buf.readerIndex(start);
        return buf;
    }

    private Payload classify(byte[] value) {
        if (value == null) {
            return new Payload(PayloadFormat.NONE, "null".getBytes(StandardCharsets.US_ASCII), null);
        }
        if (isPlainAsciiText(value)) {
            return new Payload(PayloadFormat.TEXT, value, null).quotedAscii();
        }
        String text;
        try {
            text = utf8.decode(ByteBuffer.wrap(value)).toString();
        }
        catch (CharacterCodingException e) {
            byte[] base64 = Base64.getEncoder().encode(value);
            return new Payload(PayloadFormat.BASE64, base64, null).quotedAscii();
        }
        if (looksLikeJsonStructure(text)) {
            try {
                // The decoded text, not the bytes: from bytes Jackson detects the encoding itself, and UTF-16 or
                // UTF-32 without a byte order mark is valid UTF-8 too (7B 00 7D 00 is "{", NUL, "}", NUL), which it
                // would read as {} and which would then be embedded, NULs and all, into the message.
                JsonNode tree = JSON.read(text);
                if (tree != null && (tree.isObject() || tree.isArray())) {
                    // Proven to be exactly one well-formed JSON value in UTF-8 (no trailing text, no duplicate keys):
                    // embedded as the producer wrote it, byte for byte. The tree is kept for deltas.
                    return new Payload(PayloadFormat.JSON, value, tree);
                }
            }
            catch (IOException e) {
                // Not exactly one JSON value (trailing text, duplicate keys, bad syntax, too deep): carried as text.
            }
        }
        return new Payload(PayloadFormat.TEXT, quote(text), null);
    }

    /**
     * Printable ASCII without '"' or '\\' that does not start like a JSON object or array is its own JSON string body,
     * so it is copied between quotes without being decoded and escaped: the common case of text payloads (ids, CSV,
     * numbers), which otherwise cost a String and an escaping pass per record on the reader thread.
     */
    private static boolean isPlainAsciiText(byte[] value) {
        boolean leadingSpace = true;
        for (byte b : value) {
            if (b < 0x20 || b > 0x7e || b == '"' || b == '\\') {
                return false;
            }
            if (leadingSpace && b != ' ') {
                if (b == '{' || b == '[') {
                    return false;
                }
                leadingSpace = false;
            }
        }
        return true;
    }

    private static boolean looksLikeJsonStructure(String text) {
        for (int i = 0; i < text.length(); i++) {
            char c = text.charAt(i);
            if (!Character.isWhitespace(c)) {
                return c == '{' || c == '[';
            }
        }
        return false;
    }

    static byte[] quote(String text) {
        byte[] escaped = JsonStringEncoder.getInstance().quoteAsUTF8(text);
        byte[] quoted = new byte[escaped.length + 2];
        quoted[0] = '"';
        System.arraycopy(escaped, 0, quoted, 1, escaped.length);
        quoted[quoted.length - 1] = '"';
        return quoted;
    }

    private static ByteBuf ascii(ByteBuf buf, String text) {
        buf.writeCharSequence(text, StandardCharsets.US_ASCII);
        return buf;
    }

    private static void quoted(ByteBuf buf, String text) {
        buf.writeBytes(quote(text));
    }

    /** Reads an inbound payload back into the bytes to publish, the inverse of what subscribers are sent. */
    public static byte[] decodePayload(PayloadFormat format, JsonNode payload) {
        return switch (format) {
            case NONE -> null;
            case TEXT -> payload.asText().getBytes(StandardCharsets.UTF_8);
            case BASE64 -> Base64.getDecoder().decode(payload.asText());
            case JSON -> {
                try {
                    yield JSON.mapper().writeValueAsBytes(payload);
                }
                catch (JsonProcessingException e) {
                    throw new IllegalArgumentException("payload cannot be written as JSON", e);
                }
            }
        };
    }

    private record Payload(PayloadFormat format, byte[] bytes, JsonNode json) {
        int length() {
            return bytes.length + 2;
        }

        Payload quotedAscii() {
            byte[] quoted = new byte[bytes.length + 2];
            quoted[0] = '"';
            System.arraycopy(bytes, 0, quoted, 1, bytes.length);
            quoted[quoted.length - 1] = '"';
            return new Payload(format, quoted, json);
        }

        void writeTo(ByteBuf buf) {
            buf.writeBytes(bytes);
        }
    }
}
