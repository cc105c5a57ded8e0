package io.sluice.bridge.protocol;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.Base64;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufInputStream;
import io.netty.buffer.Unpooled;

/**
 * The record value inside a {@code message} frame, for transports that carry values rather than the protocol's JSON
 * (MQTT): in, a frame as {@link MessageEncoder} wrote it (a record's own, or a group's filtered or projected one); out,
 * its {@code format} and the payload's bytes: a JSON value as a slice of the frame (no copy, the same bytes every
 * WebSocket client gets), text as its UTF-8 bytes and base64 as the bytes it stands for (both decoded from the JSON
 * string), a tombstone as no bytes. Lives beside the encoder because it reads the layout the encoder writes:
 * {@code ...,"format":"F","payload":P}}, with the payload last.
 */
public final class FramePayload {

    private static final byte[] FORMAT = ",\"format\":\"".getBytes(StandardCharsets.US_ASCII);
    private static final byte[] PAYLOAD = "\",\"payload\":".getBytes(StandardCharsets.US_ASCII);
    private static final JsonFactory JSON = new JsonFactory();

    private final PayloadFormat format;
    private final ByteBuf bytes;

    private FramePayload(PayloadFormat format, ByteBuf bytes) {
        this.format = format;
        this.bytes = bytes;
    }

    public PayloadFormat format() {
        return format;
    }

    /** The payload's bytes; the caller owns this reference (a retained slice for JSON) and releases it. */
    public ByteBuf bytes() {
        return bytes;
    }

    /** The payload of a message frame; null for a frame that is not a {@code message} (a notice, a delta). */
    public static FramePayload of(ByteBuf frame) {
        int start = frame.readerIndex();
        int length = frame.getByte(start + 1) & 0x7f;
        int json = start + (length < 126 ? 2 : length == 126 ? 4 : 10);
        int end = frame.writerIndex() - 1;
        // Strings before it are escaped JSON, where ,"format":" cannot occur: a quote in them is \".
        int formatAt = indexOf(frame, FORMAT, json, end);
        if (formatAt < 0) {
            return null;
        }
        int nameStart = formatAt + FORMAT.length;
        int payloadAt = indexOf(frame, PAYLOAD, nameStart, end);
        if (payloadAt < 0) {
            return null;
        }
        PayloadFormat format = PayloadFormat.fromWire(frame.toString(nameStart, payloadAt - nameStart, StandardCharsets.US_ASCII));
        int valueStart = payloadAt + PAYLOAD.length;
        if (format == null || frame.getByte(end) != '}') {
            return null;
        }
        return switch (format) {
            case JSON -> new FramePayload(format, frame.retainedSlice(valueStart, end - valueStart));
            case NONE -> new FramePayload(format, Unpooled.EMPTY_BUFFER);
            case TEXT -> new FramePayload(format, Unpooled.wrappedBuffer(string(frame, valueStart, end).getBytes(StandardCharsets.UTF_8)));
            case BASE64 -> new FramePayload(format, Unpooled.wrappedBuffer(Base64.getDecoder().decode(string(frame, valueStart, end))));
        };
    }

    private static String string(ByteBuf frame, int from, int to) {
        try (JsonParser parser = JSON.createParser((java.io.InputStream) new ByteBufInputStream(frame.slice(from, to - from)))) {
            if (parser.nextToken() != JsonToken.VALUE_STRING) {
                throw new IllegalStateException("a text or base64 payload is a JSON string");
            }
            return parser.getText();
        }
        catch (IOException e) {
            throw new IllegalStateException("a message frame is the JSON the encoder wrote", e);
        }
    }

    private static int indexOf(ByteBuf buf, byte[] needle, int from, int to) {
        outer:
        for (int i = from; i + needle.length <= to; i++) {
            for (int j = 0; j < needle.length; j++) {
                if (buf.getByte(i + j) != needle[j]) {
                    continue outer;
                }
            }
            return i;
        }
        return -1;
    }
}
