package io.sluice.format;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;

/**
 * Records and schemas an attacker would write (issue 30), built by hand so that no library refuses to produce them:
 * Avro decimals beyond their precision, arrays of zero-byte items with huge block counts, deeply nested .proto text,
 * self-nested {@code google.protobuf.Any}. Shared by the format unit tests and the bridge-level attack tests.
 */
public final class HostileBytes {

    /** A bytes decimal that Avro's own validation accepts (scale <= precision) and that asks for a 2^31-digit text. */
    public static final String HUGE_DECIMAL = "{\"type\":\"bytes\",\"logicalType\":\"decimal\",\"precision\":2147483647,\"scale\":2147483647}";
    public static final String DECIMAL_38_2 = "{\"type\":\"bytes\",\"logicalType\":\"decimal\",\"precision\":38,\"scale\":2}";
    public static final String NULL_ARRAY = "{\"type\":\"array\",\"items\":\"null\"}";

    /** A message holding an Any: the Any may hold another Any, and so on. */
    public static final String ANY_HOLDER = """
            syntax = "proto3";
            package hostile;
            import "google/protobuf/any.proto";
            message Holder { google.protobuf.Any any = 1; }
            """;

    private static final byte[] ANY_URL = "type.googleapis.com/google.protobuf.Any".getBytes(StandardCharsets.US_ASCII);
    private static final byte[] HOLDER_URL = "type.googleapis.com/hostile.Holder".getBytes(StandardCharsets.US_ASCII);

    private HostileBytes() {
    }

    /** Confluent framing: magic 0, the 4-byte id, the body. */
    public static byte[] framed(int id, byte[] body) {
        return ConfluentWireFormat.frame(id, body);
    }

    /** A bytes value of Avro binary: zig-zag length, then the bytes. */
    public static byte[] avroBytes(byte[] value) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        zigzag(out, value.length);
        out.writeBytes(value);
        return out.toByteArray();
    }

    /** An Avro long as Avro writes it. */
    public static byte[] avroLong(long v) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        zigzag(out, v);
        return out.toByteArray();
    }

    /**
     * An Avro array of nulls about {@code size} bytes long whose blocks each declare as many items as bytes remain:
     * every block passes a per-block "count <= bytes left" check, and the items total about size^2 / 4.
     */
    public static byte[] nullArray(int size) {
        // Built from the end: each block declares exactly the bytes that follow its count, the end marker included.
        java.util.ArrayDeque<Long> counts = new java.util.ArrayDeque<>();
        long tail = 1; // the end marker
        while (tail < size) {
            counts.push(tail);
            tail += varintSize((tail << 1) ^ (tail >> 63));
        }
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        for (long count : counts) {
            zigzag(out, count);
        }
        out.write(0);
        return out.toByteArray();
    }

    /** .proto text of {@code levels} messages nested in each other. */
    public static String nestedProto(int levels) {
        StringBuilder text = new StringBuilder("syntax = \"proto3\";\n");
        for (int i = 0; i < levels; i++) {
            text.append("message M").append(i).append(" {");
        }
        for (int i = 0; i < levels; i++) {
            text.append('}');
        }
        return text.append('\n').toString();
    }

    /**
     * A {@code hostile.Holder} whose Any holds an Any {@code levels} deep, the innermost holding an empty Holder. Written
     * outside in, in one pass (nesting by re-serializing would cost levels^2 bytes).
     */
    public static byte[] selfNestedAny(int levels) {
        // lengths[k]: the bytes of the Any k levels from the inside.
        long[] lengths = new long[levels + 1];
        lengths[0] = field(1, HOLDER_URL.length);
        for (int k = 1; k <= levels; k++) {
            lengths[k] = field(1, ANY_URL.length) + field(2, lengths[k - 1]);
        }
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        out.write(0x0a); // Holder.any
        varint(out, lengths[levels]);
        for (int k = levels; k >= 1; k--) {
            out.write(0x0a);
            varint(out, ANY_URL.length);
            out.writeBytes(ANY_URL);
            out.write(0x12);
            varint(out, lengths[k - 1]);
        }
        out.write(0x0a);
        varint(out, HOLDER_URL.length);
        out.writeBytes(HOLDER_URL);
        return out.toByteArray();
    }

    /** A Confluent protobuf body for the first message type: message-index count 0, then the message. */
    public static byte[] protobufFramed(int id, byte[] message) {
        byte[] body = new byte[message.length + 1];
        System.arraycopy(message, 0, body, 1, message.length);
        return framed(id, body);
    }

    private static long field(int tag, long length) {
        return 1 + varintSize(length) + length;
    }

    private static int varintSize(long v) {
        int n = 1;
        while ((v >>>= 7) != 0) {
            n++;
        }
        return n;
    }

    private static void zigzag(ByteArrayOutputStream out, long v) {
        varint(out, (v << 1) ^ (v >> 63));
    }

    private static void varint(ByteArrayOutputStream out, long v) {
        while ((v & ~0x7fL) != 0) {
            out.write((int) ((v & 0x7f) | 0x80));
            v >>>= 7;
        }
        out.write((int) v);
    }
}
