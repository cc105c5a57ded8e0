package io.sluice.format;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;

import org.apache.avro.io.Decoder;
import org.apache.avro.util.Utf8;

/**
 * Avro's binary encoding read from one record's bytes, checking every length and count it reads against the bytes that
 * remain before anything is allocated from it. Avro's own BinaryDecoder trusts a declared string, bytes or collection
 * length up to its global limits (about 2 GiB by default, set once per JVM by system properties), so a 20-byte record
 * declaring a 2 GiB string would make it allocate 2 GiB; here it is refused.
 *
 * <p>An array or map block may not declare more items than bytes remain: each item takes at least one byte except the
 * items of an array of {@code null}, of empty records or of {@code fixed(0)}, which no real schema has in bulk (a
 * documented limit). Those zero-byte items consume nothing, so every block would pass that check again: the items of all
 * the blocks of all the arrays and maps of one datum together may also not exceed the record's size in bytes (a record of
 * n bytes otherwise held about n^2/4 nulls, ~10^8 from one of 20 KB, built twice: Avro's array and the JSON tree).
 */
final class AvroBinaryDecoder extends Decoder {

    private final byte[] buf;
    private int pos;
    private final int end;
    /** Items the datum's arrays and maps may still declare, all blocks together: the record's size at the start. */
    private long itemsLeft;

    AvroBinaryDecoder(byte[] buf, int offset, int length) {
        this.buf = buf;
        this.pos = offset;
        this.end = offset + length;
        this.itemsLeft = length;
    }

    int remaining() {
        return end - pos;
    }

    private void need(long count, String what) throws IOException {
        if (count < 0) {
            throw new AvroBoundsException("negative " + what + " length");
        }
        if (count > end - pos) {
            throw new AvroBoundsException(what + " length " + count + " exceeds the " + (end - pos) + " bytes left");
        }
    }

    @Override
    public void readNull() {
    }

    @Override
    public boolean readBoolean() throws IOException {
        need(1, "boolean");
        int b = buf[pos++];
        if (b != 0 && b != 1) {
            throw new AvroBoundsException("boolean byte " + b);
        }
        return b == 1;
    }

    @Override
    public int readInt() throws IOException {
        long raw = readVarint(5);
        if (raw >>> 32 != 0) {
            throw new AvroBoundsException("int varint out of range");
        }
        int n = (int) raw;
        return (n >>> 1) ^ -(n & 1);
    }

    @Override
    public long readLong() throws IOException {
        long raw = readVarint(10);
        return (raw >>> 1) ^ -(raw & 1);
    }

    private long readVarint(int maxBytes) throws IOException {
        long raw = 0;
        for (int i = 0; i < maxBytes; i++) {
            if (pos >= end) {
                throw new AvroBoundsException("truncated varint");
            }
            int b = buf[pos++];
            raw |= (long) (b & 0x7f) << (7 * i);
            if ((b & 0x80) == 0) {
                return raw;
            }
        }
        throw new AvroBoundsException("varint longer than " + maxBytes + " bytes");
    }

    @Override
    public float readFloat() throws IOException {
        need(4, "float");
        float f = ByteBuffer.wrap(buf, pos, 4).order(ByteOrder.LITTLE_ENDIAN).getFloat();
        pos += 4;
        return f;
    }

    @Override
    public double readDouble() throws IOException {
        need(8, "double");
        double d = ByteBuffer.wrap(buf, pos, 8).order(ByteOrder.LITTLE_ENDIAN).getDouble();
        pos += 8;
        return d;
    }

    @Override
    public Utf8 readString(Utf8 old) throws IOException {
        long length = readLong();
        need(length, "string");
        byte[] bytes = new byte[(int) length];
        System.arraycopy(buf, pos, bytes, 0, bytes.length);
        pos += bytes.length;
        return new Utf8(bytes);
    }

    @Override
    public String readString() throws IOException {
        return readString(null).toString();
    }

    @Override
    public void skipString() throws IOException {
        long length = readLong();
        need(length, "string");
        pos += (int) length;
    }

    @Override
    public ByteBuffer readBytes(ByteBuffer old) throws IOException {
        long length = readLong();
        need(length, "bytes");
        byte[] bytes = new byte[(int) length];
        System.arraycopy(buf, pos, bytes, 0, bytes.length);
        pos += bytes.length;
        return ByteBuffer.wrap(bytes);
    }

    @Override
    public void skipBytes() throws IOException {
        skipString();
    }

    @Override
    public void readFixed(byte[] bytes, int start, int length) throws IOException {
        need(length, "fixed");
        System.arraycopy(buf, pos, bytes, start, length);
        pos += length;
    }

    @Override
    public void skipFixed(int length) throws IOException {
        need(length, "fixed");
        pos += length;
    }

    @Override
    public int readEnum() throws IOException {
        return readInt();
    }

    @Override
    public long readArrayStart() throws IOException {
        return readItemCount("array");
    }

    @Override
    public long arrayNext() throws IOException {
        return readItemCount("array");
    }

    @Override
    public long skipArray() throws IOException {
        return readItemCount("array");
    }

    @Override
    public long readMapStart() throws IOException {
        return readItemCount("map");
    }

    @Override
    public long mapNext() throws IOException {
        return readItemCount("map");
    }

    @Override
    public long skipMap() throws IOException {
        return readItemCount("map");
    }

    @Override
    public int readIndex() throws IOException {
        return readInt();
    }

    /** A block's item count; a negative count is followed by the block's size in bytes (which we do not need). */
    private long readItemCount(String what) throws IOException {
        long count = readLong();
        if (count < 0) {
            if (count == Long.MIN_VALUE) {
                throw new AvroBoundsException(what + " block count out of range");
            }
            count = -count;
            readLong();
        }
        if (count > end - pos) {
            throw new AvroBoundsException(what + " block of " + count + " items exceeds the " + (end - pos) + " bytes left");
        }
        if (count > itemsLeft) {
            throw new AvroBoundsException(what + " items exceed the record's size in total (" + (end - pos) + " bytes left)");
        }
        itemsLeft -= count;
        return count;
    }

    /** Bytes that do not fit their schema. */
    static final class AvroBoundsException extends IOException {
        AvroBoundsException(String message) {
            super(message);
        }
    }
}
