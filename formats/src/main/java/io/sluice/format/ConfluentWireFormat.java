package io.sluice.format;

import java.io.ByteArrayOutputStream;

/**
 * The Confluent wire format that registry-aware serializers write: a magic byte 0, the schema's global id as 4 bytes
 * big-endian, then the serialized value. Protobuf adds, between the id and the message, the path of the message type
 * in its file as a list of zig-zag varints (count, then indexes): [1] is the second top-level message, [0, 2] the third
 * message nested in the first; the common [0] is written as the single byte 0 (a count of zero).
 */
public final class ConfluentWireFormat {

    static final byte MAGIC = 0;
    static final int HEADER_BYTES = 5;
    /** Message types nest at most this deep in a path; a longer declared path is hostile or corrupt. */
    static final int MAX_MESSAGE_INDEXES = 64;

    private ConfluentWireFormat() {
    }

    /** The schema id of framed bytes. */
    public static int schemaId(byte[] bytes) throws DecodeException {
        if (bytes == null || bytes.length < HEADER_BYTES) {
            throw new DecodeException("shorter than the 5-byte schema registry header");
        }
        if (bytes[0] != MAGIC) {
            throw new DecodeException("no schema registry header (first byte " + (bytes[0] & 0xff) + ", expected 0)");
        }
        return ((bytes[1] & 0xff) << 24) | ((bytes[2] & 0xff) << 16) | ((bytes[3] & 0xff) << 8) | (bytes[4] & 0xff);
    }

    /** The header for a schema id, followed by room for {@code bodyBytes} more. */
    static ByteArrayOutputStream header(int schemaId, int bodyBytes) {
        ByteArrayOutputStream out = new ByteArrayOutputStream(HEADER_BYTES + Math.max(0, bodyBytes));
        out.write(MAGIC);
        out.write(schemaId >>> 24);
        out.write(schemaId >>> 16);
        out.write(schemaId >>> 8);
        out.write(schemaId);
        return out;
    }

    /** Framed bytes: header, then the body. */
    static byte[] frame(int schemaId, byte[] body) {
        ByteArrayOutputStream out = header(schemaId, body.length);
        out.writeBytes(body);
        return out.toByteArray();
    }

    /** Protobuf's message-index path after the header, and where the message starts. */
    record MessageIndexes(int[] path, int messageOffset) {
    }

    static MessageIndexes readMessageIndexes(byte[] bytes) throws DecodeException {
        int[] pos = {HEADER_BYTES};
        int count = readZigZagVarint(bytes, pos);
        if (count == 0) {
            return new MessageIndexes(new int[] {0}, pos[0]);
        }
        if (count < 0 || count > MAX_MESSAGE_INDEXES) {
            throw new DecodeException("message index count " + count + " out of range 0.." + MAX_MESSAGE_INDEXES);
        }
        int[] path = new int[count];
        for (int i = 0; i < count; i++) {
            path[i] = readZigZagVarint(bytes, pos);
            if (path[i] < 0) {
                throw new DecodeException("negative message index");
            }
        }
        return new MessageIndexes(path, pos[0]);
    }

    static void writeMessageIndexes(ByteArrayOutputStream out, int[] path) {
        if (path.length == 1 && path[0] == 0) {
            out.write(0);
            return;
        }
        writeZigZagVarint(out, path.length);
        for (int index : path) {
            writeZigZagVarint(out, index);
        }
    }

    private static int readZigZagVarint(byte[] bytes, int[] pos) throws DecodeException {
        int raw = 0;
        for (int shift = 0; shift < 32; shift += 7) {
            if (pos[0] >= bytes.length) {
                throw new DecodeException("truncated message index");
            }
            int b = bytes[pos[0]++];
            raw |= (b & 0x7f) << shift;
            if ((b & 0x80) == 0) {
                return (raw >>> 1) ^ -(raw & 1);
            }
        }
        throw new DecodeException("message index varint longer than 5 bytes");
    }

    private static void writeZigZagVarint(ByteArrayOutputStream out, int value) {
        int raw = (value << 1) ^ (value >> 31);
        while ((raw & ~0x7f) != 0) {
            out.write((raw & 0x7f) | 0x80);
            raw >>>= 7;
        }
        out.write(raw);
    }
}
