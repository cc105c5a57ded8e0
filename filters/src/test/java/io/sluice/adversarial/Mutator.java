package io.sluice.adversarial;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;

import org.apache.kafka.common.protocol.ApiKeys;

import io.sluice.adversarial.Mutation.Kind;

/**
 * Turns a recorded request into a hostile one. Byte-level operators (bit flips, truncation, size prefix, length and
 * count fields) know nothing of the message; {@link RecordBatchMutations} aims at record batches inside Produce and
 * {@link StructuralMutations} changes decoded messages (duplicated elements, extreme field values) and encodes them
 * again, so the request is well-formed but semantically hostile. Everything comes from the given {@link Random}, so
 * one seed and mutation index always yield the same bytes from the same recorded frame.
 */
final class Mutator {

    static final int[] INTERESTING_INTS = {0, -1, 1, 2, 0x7f, 0x80, 0xff, 0x7fff, 0x8000, 0xffff, 0x10000, 0x7fffffff, 0x80000000, 0x40000000, 1 << 20,
        100_000_000};
    private static final byte[] INTERESTING_BYTES = {0, (byte) 0xff, 0x7f, (byte) 0x80, 1, (byte) 0xfe};
    /** Everything after the 4-byte size prefix and the api key and version: header fields are HEADER's. */
    private static final int BODY_START = 4;

    private final StructuralMutations structural = new StructuralMutations();

    Mutation mutate(Corpus.Seed seed, Random random) {
        Kind[] kinds = Kind.values();
        for (int attempt = 0; attempt < 8; attempt++) {
            Kind kind = kinds[random.nextInt(kinds.length)];
            Mutation m = apply(kind, seed, random);
            if (m != null) {
                return m;
            }
        }
        return bitFlip(seed.frame(), random);
    }

    private Mutation apply(Kind kind, Corpus.Seed seed, Random random) {
        byte[] frame = seed.frame();
        return switch (kind) {
            case BIT_FLIP -> bitFlip(frame, random);
            case INTERESTING_BYTES -> interestingBytes(frame, random);
            case TRUNCATE -> truncate(frame, random);
            case APPEND -> append(frame, random);
            case DUPLICATE_SLICE -> duplicateSlice(frame, random);
            case SIZE_PREFIX -> sizePrefix(frame, random);
            case LENGTH_FIELD -> lengthField(frame, random);
            case RECORD_BATCH -> RecordBatchMutations.mutate(frame, random);
            case HEADER -> header(frame, random);
            case DUPLICATE_ELEMENT -> structural.duplicateElement(seed, random);
            case FIELD_VALUE -> structural.fieldValue(seed, random);
        };
    }

    private static Mutation bitFlip(byte[] frame, Random random) {
        byte[] out = frame.clone();
        int flips = 1 + random.nextInt(8);
        List<String> where = new ArrayList<>();
        for (int i = 0; i < flips; i++) {
            int pos = BODY_START + random.nextInt(out.length - BODY_START);
            int bit = random.nextInt(8);
            out[pos] ^= (byte) (1 << bit);
            where.add(pos + ":" + bit);
        }
        return new Mutation(Kind.BIT_FLIP, "flipped bits (offset:bit) " + where, out, false, true);
    }

    private static Mutation interestingBytes(byte[] frame, Random random) {
        byte[] out = frame.clone();
        int count = 1 + random.nextInt(4);
        List<String> where = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            int pos = BODY_START + random.nextInt(out.length - BODY_START);
            out[pos] = INTERESTING_BYTES[random.nextInt(INTERESTING_BYTES.length)];
            where.add(pos + "=" + String.format("%02x", out[pos]));
        }
        return new Mutation(Kind.INTERESTING_BYTES, "set bytes " + where, out, false, true);
    }

    private static Mutation truncate(byte[] frame, Random random) {
        int body = frame.length - 4;
        int keep = random.nextInt(body);
        return new Mutation(Kind.TRUNCATE, "truncated the request to " + keep + " of " + body + " bytes (size prefix matches)",
                withSize(Arrays.copyOf(frame, 4 + keep)), false, true);
    }

    private static Mutation append(byte[] frame, Random random) {
        int extra = 1 + random.nextInt(64);
        byte[] out = Arrays.copyOf(frame, frame.length + extra);
        for (int i = frame.length; i < out.length; i++) {
            out[i] = (byte) random.nextInt(256);
        }
        return new Mutation(Kind.APPEND, "appended " + extra + " random bytes (size prefix matches)", withSize(out), false, true);
    }

    private static Mutation duplicateSlice(byte[] frame, Random random) {
        int from = 12 + random.nextInt(Math.max(1, frame.length - 12));
        int length = 1 + random.nextInt(Math.min(256, frame.length - from));
        int times = 1 + random.nextInt(random.nextInt(8) == 0 ? 200 : 3);
        ByteBuffer out = ByteBuffer.allocate(frame.length + length * times);
        out.put(frame, 0, from + length);
        for (int i = 0; i < times; i++) {
            out.put(frame, from, length);
        }
        out.put(frame, from + length, frame.length - from - length);
        return new Mutation(Kind.DUPLICATE_SLICE, "repeated bytes " + from + ".." + (from + length) + " " + times + " more time(s)",
                withSize(out.array()), false, true);
    }

    private static Mutation sizePrefix(byte[] frame, Random random) {
        int body = frame.length - 4;
        byte[] out = frame.clone();
        int size;
        boolean halfClose;
        switch (random.nextInt(4)) {
            case 0 -> size = random.nextInt(body);                       // shorter: the rest is read as another frame
            case 1 -> size = body + 1 + random.nextInt(4096);            // longer than what follows
            case 2 -> size = INTERESTING_INTS[random.nextInt(INTERESTING_INTS.length)];
            default -> size = -1 - random.nextInt(Integer.MAX_VALUE);
        }
        // Whatever the proxy makes of the bytes, the stream then ends: waiting for more is not a hang.
        halfClose = size != body;
        ByteBuffer.wrap(out).putInt(0, size);
        return new Mutation(Kind.SIZE_PREFIX, "size prefix " + body + " -> " + size + (halfClose ? ", then end of stream" : ""), out, halfClose,
                size == body);
    }

    /**
     * Finds what looks like a length or count (an int16 before as many printable bytes, a compact varint before its
     * length minus one printable bytes, a small int32) and replaces it with an extreme value.
     */
    private static Mutation lengthField(byte[] frame, Random random) {
        List<int[]> candidates = new ArrayList<>(); // {offset, width} with width 2, 4 or -1 (varint byte)
        for (int pos = 12; pos + 2 <= frame.length; pos++) {
            int s16 = ((frame[pos] & 0xff) << 8) | (frame[pos + 1] & 0xff);
            if (s16 > 0 && s16 < 256 && pos + 2 + s16 <= frame.length && printable(frame, pos + 2, s16)) {
                candidates.add(new int[] {pos, 2});
            }
            int varintLength = (frame[pos] & 0xff) - 1;
            if (varintLength > 0 && varintLength < 127 && pos + 1 + varintLength <= frame.length && printable(frame, pos + 1, varintLength)) {
                candidates.add(new int[] {pos, -1});
            }
            if (pos + 4 <= frame.length) {
                int s32 = ByteBuffer.wrap(frame, pos, 4).getInt();
                if (s32 > 0 && s32 < 64) {
                    candidates.add(new int[] {pos, 4});
                }
            }
        }
        if (candidates.isEmpty()) {
            return null;
        }
        int[] pick = candidates.get(random.nextInt(candidates.size()));
        byte[] out = frame.clone();
        int value = INTERESTING_INTS[random.nextInt(INTERESTING_INTS.length)];
        String what;
        switch (pick[1]) {
            case 2 -> {
                ByteBuffer.wrap(out).putShort(pick[0], (short) value);
                what = "int16 length";
            }
            case 4 -> {
                ByteBuffer.wrap(out).putInt(pick[0], value);
                what = "int32 count";
            }
            default -> {
                out[pick[0]] = INTERESTING_BYTES[random.nextInt(INTERESTING_BYTES.length)];
                value = out[pick[0]] & 0xff;
                what = "compact varint length";
            }
        }
        return new Mutation(Kind.LENGTH_FIELD, what + " at offset " + pick[0] + " set to " + value, out, false, true);
    }

    private static Mutation header(byte[] frame, Random random) {
        byte[] out = frame.clone();
        ByteBuffer buffer = ByteBuffer.wrap(out);
        String what;
        switch (random.nextInt(5)) {
            case 0 -> {
                ApiKeys[] keys = ApiKeys.values();
                short key = random.nextInt(8) == 0 ? (short) (random.nextInt(Short.MAX_VALUE)) : keys[random.nextInt(keys.length)].id;
                buffer.putShort(4, key);
                what = "api key -> " + key;
            }
            case 1 -> {
                short current = buffer.getShort(6);
                short[] versions = {-1, 0, (short) (current + 1), (short) (current - 1), Short.MAX_VALUE, (short) random.nextInt(20)};
                short version = versions[random.nextInt(versions.length)];
                buffer.putShort(6, version);
                what = "api version " + current + " -> " + version;
            }
            case 2 -> {
                int correlation = INTERESTING_INTS[random.nextInt(INTERESTING_INTS.length)];
                buffer.putInt(8, correlation);
                what = "correlation id -> " + correlation;
            }
            case 3 -> {
                if (out.length < 14) {
                    return null;
                }
                short clientIdLength = (short) INTERESTING_INTS[random.nextInt(INTERESTING_INTS.length)];
                buffer.putShort(12, clientIdLength);
                what = "client id length -> " + clientIdLength;
            }
            default -> {
                // The header's tagged fields (flexible versions) sit right after the client id.
                if (out.length < 14) {
                    return null;
                }
                int clientIdLength = buffer.getShort(12);
                int tags = 14 + Math.max(0, clientIdLength);
                if (tags >= out.length) {
                    return null;
                }
                out[tags] = INTERESTING_BYTES[random.nextInt(INTERESTING_BYTES.length)];
                what = "byte after the client id (header tagged fields in flexible versions) -> " + String.format("%02x", out[tags]);
            }
        }
        return new Mutation(Kind.HEADER, what, out, false, true);
    }

    private static boolean printable(byte[] bytes, int from, int length) {
        for (int i = from; i < from + length; i++) {
            if (bytes[i] < 0x20 || bytes[i] > 0x7e) {
                return false;
            }
        }
        return true;
    }

    /** The same bytes with the size prefix set to what follows it. */
    static byte[] withSize(byte[] frame) {
        ByteBuffer.wrap(frame).putInt(0, frame.length - 4);
        return frame;
    }
}
