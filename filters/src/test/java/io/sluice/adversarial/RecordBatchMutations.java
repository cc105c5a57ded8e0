package io.sluice.adversarial;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;

import org.apache.kafka.common.utils.ByteUtils;
import org.apache.kafka.common.utils.Crc32C;

import io.sluice.adversarial.Mutation.Kind;

/**
 * Mutations inside the record batches (magic 2) of a recorded Produce request: the header's record count, length,
 * attributes (compression, transactional and control bits) and the varints of the first record (length, timestamp and
 * offset deltas, key and value lengths, header count). Half of them fix the batch CRC afterwards so code that checks it
 * is passed and the parsers behind it are reached.
 */
final class RecordBatchMutations {

    private static final int LENGTH_OFFSET = 8;
    private static final int MAGIC_OFFSET = 16;
    private static final int CRC_OFFSET = 17;
    private static final int ATTRIBUTES_OFFSET = 21;
    private static final int RECORDS_COUNT_OFFSET = 57;
    private static final int RECORDS_OFFSET = 61;
    private static final int LOG_OVERHEAD = 12;

    private RecordBatchMutations() {
    }

    static Mutation mutate(byte[] frame, Random random) {
        List<Integer> batches = findBatches(frame);
        if (batches.isEmpty()) {
            return null;
        }
        int batch = batches.get(random.nextInt(batches.size()));
        byte[] out = frame.clone();
        ByteBuffer buffer = ByteBuffer.wrap(out);
        String what;
        switch (random.nextInt(5)) {
            case 0 -> {
                int count = buffer.getInt(batch + RECORDS_COUNT_OFFSET);
                int[] claims = {0, -1, count + 1, count - 1, Integer.MAX_VALUE, Integer.MIN_VALUE, 1 << 30, 1_000_000};
                int claim = claims[random.nextInt(claims.length)];
                buffer.putInt(batch + RECORDS_COUNT_OFFSET, claim);
                what = "record count " + count + " -> " + claim;
            }
            case 1 -> {
                short attributes = buffer.getShort(batch + ATTRIBUTES_OFFSET);
                short changed = random.nextBoolean()
                        ? (short) ((attributes & ~0x07) | random.nextInt(8))           // compression codec, 5-7 undefined
                        : (short) (attributes ^ (1 << random.nextInt(16)));          // timestamp type, transactional, control, ...
                buffer.putShort(batch + ATTRIBUTES_OFFSET, changed);
                what = String.format("batch attributes %04x -> %04x", attributes, changed);
            }
            case 2 -> {
                int length = buffer.getInt(batch + LENGTH_OFFSET);
                int claim = Mutator.INTERESTING_INTS[random.nextInt(Mutator.INTERESTING_INTS.length)];
                buffer.putInt(batch + LENGTH_OFFSET, claim);
                what = "batch length " + length + " -> " + claim;
            }
            default -> {
                Mutation varint = recordVarint(out, batch, random);
                if (varint == null) {
                    return null;
                }
                return varint;
            }
        }
        boolean crc = random.nextBoolean();
        if (crc) {
            fixCrc(out, batch);
        }
        return new Mutation(Kind.RECORD_BATCH, what + " in the batch at offset " + batch + (crc ? ", CRC fixed" : ""), out, false, true);
    }

    /** Replaces one varint of the first record with an extreme value, the bytes after it shifted as needed. */
    private static Mutation recordVarint(byte[] frame, int batch, Random random) {
        short attributes = ByteBuffer.wrap(frame).getShort(batch + ATTRIBUTES_OFFSET);
        if ((attributes & 0x07) != 0) {
            return null; // compressed: the records are not varints on the wire
        }
        List<int[]> varints = new ArrayList<>(); // {offset, size}
        List<String> names = new ArrayList<>();
        ByteBuffer in = ByteBuffer.wrap(frame);
        int end = batch + LOG_OVERHEAD + in.getInt(batch + LENGTH_OFFSET);
        in.position(batch + RECORDS_OFFSET);
        try {
            int start = in.position();
            ByteUtils.readVarint(in);
            add(varints, names, "record length", start, in.position());
            in.get(); // attributes
            start = in.position();
            ByteUtils.readVarlong(in);
            add(varints, names, "timestamp delta", start, in.position());
            start = in.position();
            ByteUtils.readVarint(in);
            add(varints, names, "offset delta", start, in.position());
            start = in.position();
            int keyLength = ByteUtils.readVarint(in);
            add(varints, names, "key length", start, in.position());
            in.position(in.position() + Math.max(0, keyLength));
            start = in.position();
            int valueLength = ByteUtils.readVarint(in);
            add(varints, names, "value length", start, in.position());
            in.position(in.position() + Math.max(0, valueLength));
            start = in.position();
            ByteUtils.readVarint(in);
            add(varints, names, "header count", start, in.position());
        } catch (RuntimeException e) {
            // a record shorter than its fields: mutate what was found
        }
        if (varints.isEmpty() || varints.get(0)[0] >= end) {
            return null;
        }
        int pick = random.nextInt(varints.size());
        int[] at = varints.get(pick);
        long[] values = {-1, -2, Integer.MAX_VALUE, Integer.MIN_VALUE, 1 << 20, 0, Long.MAX_VALUE};
        long value = values[random.nextInt(values.length)];
        ByteBuffer encoded = ByteBuffer.allocate(10);
        String shown;
        if (random.nextInt(5) == 0) {
            // An overlong varint: ten continuation bytes, more than any int or long may use.
            for (int i = 0; i < 10; i++) {
                encoded.put((byte) 0xff);
            }
            shown = "ten 0xff bytes (overlong)";
        } else if (value == Long.MAX_VALUE) {
            ByteUtils.writeVarlong(value, encoded);
            shown = Long.toString(value);
        } else {
            ByteUtils.writeVarint((int) value, encoded);
            shown = Long.toString(value);
        }
        encoded.flip();
        byte[] out = new byte[frame.length - at[1] + encoded.remaining()];
        System.arraycopy(frame, 0, out, 0, at[0]);
        encoded.get(out, at[0], encoded.remaining());
        System.arraycopy(frame, at[0] + at[1], out, at[0] + (out.length - frame.length + at[1]), frame.length - at[0] - at[1]);
        int delta = out.length - frame.length;
        boolean fixLengths = random.nextBoolean();
        if (fixLengths) {
            ByteBuffer b = ByteBuffer.wrap(out);
            int oldLength = b.getInt(batch + LENGTH_OFFSET);
            b.putInt(batch + LENGTH_OFFSET, oldLength + delta);
            fixCrc(out, batch);
            out = fixRecordsLength(out, batch, LOG_OVERHEAD + oldLength, delta);
        }
        return new Mutation(Kind.RECORD_BATCH, names.get(pick) + " varint of the first record in the batch at offset " + batch + " -> " + shown
                + (fixLengths ? ", batch length and CRC fixed" : ", batch length left as it was"), Mutator.withSize(out), false, true);
    }

    /**
     * The Produce request's records field (int32 length, or a compact varint length + 1 in flexible versions) sits right
     * before a partition's first batch: keep it in step with the batch so the request still decodes down to the record.
     */
    private static byte[] fixRecordsLength(byte[] frame, int batch, int oldLength, int delta) {
        ByteBuffer buffer = ByteBuffer.wrap(frame);
        if (batch >= 4 && buffer.getInt(batch - 4) == oldLength) {
            buffer.putInt(batch - 4, oldLength + delta);
            return frame;
        }
        ByteBuffer oldVarint = ByteBuffer.allocate(5);
        ByteUtils.writeUnsignedVarint(oldLength + 1, oldVarint);
        oldVarint.flip();
        int size = oldVarint.remaining();
        if (batch < size || !ByteBuffer.wrap(frame, batch - size, size).equals(oldVarint)) {
            return frame;
        }
        ByteBuffer newVarint = ByteBuffer.allocate(5);
        ByteUtils.writeUnsignedVarint(oldLength + delta + 1, newVarint);
        newVarint.flip();
        byte[] out = new byte[frame.length - size + newVarint.remaining()];
        System.arraycopy(frame, 0, out, 0, batch - size);
        newVarint.get(out, batch - size, newVarint.remaining());
        System.arraycopy(frame, batch, out, batch - size + (out.length - frame.length + size), frame.length - batch);
        return out;
    }

    private static void add(List<int[]> varints, List<String> names, String name, int start, int end) {
        varints.add(new int[] {start, end - start});
        names.add(name);
    }

    /** Offsets of what look like v2 record batches: magic 2 and a length that fits in the frame. */
    static List<Integer> findBatches(byte[] frame) {
        List<Integer> found = new ArrayList<>();
        ByteBuffer buffer = ByteBuffer.wrap(frame);
        for (int pos = 12; pos + RECORDS_OFFSET <= frame.length; pos++) {
            if (frame[pos + MAGIC_OFFSET] != 2) {
                continue;
            }
            int length = buffer.getInt(pos + LENGTH_OFFSET);
            if (length >= RECORDS_OFFSET - LOG_OVERHEAD && pos + LOG_OVERHEAD + length <= frame.length) {
                int crcEnd = pos + LOG_OVERHEAD + length;
                long crc = Crc32C.compute(frame, pos + ATTRIBUTES_OFFSET, crcEnd - pos - ATTRIBUTES_OFFSET);
                if ((int) crc == buffer.getInt(pos + CRC_OFFSET)) {
                    found.add(pos);
                    pos = crcEnd - 1;
                }
            }
        }
        return found;
    }

    private static void fixCrc(byte[] frame, int batch) {
        ByteBuffer buffer = ByteBuffer.wrap(frame);
        int length = buffer.getInt(batch + LENGTH_OFFSET);
        // In long: a mutated length near Integer.MAX_VALUE would overflow into a negative end and pass the check.
        long end = (long) batch + LOG_OVERHEAD + length;
        if (length < RECORDS_OFFSET - LOG_OVERHEAD || end > frame.length) {
            return; // the length itself was the mutation: nothing sensible to checksum
        }
        buffer.putInt(batch + CRC_OFFSET, (int) Crc32C.compute(frame, batch + ATTRIBUTES_OFFSET, (int) end - batch - ATTRIBUTES_OFFSET));
    }
}
