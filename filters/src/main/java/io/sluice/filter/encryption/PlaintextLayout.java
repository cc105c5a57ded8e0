package io.sluice.filter.encryption;

import java.nio.BufferUnderflowException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;

import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.header.internals.RecordHeader;

/**
 * What is encrypted when headers are encrypted too: the value and every header, packed as
 *
 * <pre>
 *   value length   4 bytes  signed, big-endian (the value is never null here: tombstones are not encrypted)
 *   value          n bytes
 *   header count   2 bytes  unsigned
 *   per header:    name length (2) | name (UTF-8) | value length (4, -1 for null) | value
 * </pre>
 *
 * <p>Every bounded field is checked before anything is written: a Kafka record may carry more headers, or longer
 * header names, than the 2-byte fields can say (its own lengths are 4-byte varints), and a count or length cut to 16
 * bits would leave a value that never decrypts. The 4-byte fields hold any length a Kafka record can carry.</p>
 */
final class PlaintextLayout {

    /** The most headers one record may carry when headers are encrypted: the count field is 2 bytes, unsigned. */
    static final int MAX_HEADERS = 0xffff;
    /** The longest header name, in UTF-8 bytes, when headers are encrypted: its length field is 2 bytes, unsigned. */
    static final int MAX_NAME_BYTES = 0xffff;
    /** The largest packed plaintext: a Java array's bound, less room for the envelope written around it. */
    static final int MAX_PACKED_BYTES = Integer.MAX_VALUE - (1 << 20);

    private PlaintextLayout() {
    }

    /** @throws UnencryptableRecordException when a count or length does not fit its field: nothing is packed */
    static ByteBuffer pack(ByteBuffer value, Header[] headers) {
        if (headers.length > MAX_HEADERS) {
            throw new UnencryptableRecordException(headers.length + " headers; with encrypted headers a record holds at most " + MAX_HEADERS);
        }
        long size = 4L + value.remaining() + 2;
        byte[][] names = new byte[headers.length][];
        for (int i = 0; i < headers.length; i++) {
            names[i] = headers[i].key().getBytes(StandardCharsets.UTF_8);
            UnencryptableRecordException.checkLength("header " + i + ": a name", names[i].length, MAX_NAME_BYTES);
            size += 2 + names[i].length + 4 + (headers[i].value() == null ? 0 : headers[i].value().length);
        }
        ByteBuffer out = ByteBuffer.allocate(UnencryptableRecordException.checkLength("value and headers packed", size, MAX_PACKED_BYTES));
        out.putInt(value.remaining()).put(value.duplicate()).putShort((short) headers.length);
        for (int i = 0; i < headers.length; i++) {
            byte[] v = headers[i].value();
            out.putShort((short) names[i].length).put(names[i]).putInt(v == null ? -1 : v.length);
            if (v != null) {
                out.put(v);
            }
        }
        return out.flip();
    }

    /**
     * @throws IllegalArgumentException when the bytes are not such a layout. In format v2 they always are (the flag
     *                                  that says so is authenticated); a v1 record's flag is not, so a v1 value can
     *                                  be made to look packed, and every length is checked before it is trusted.
     */
    static RecordCipher.Plain unpack(ByteBuffer in) {
        try {
            int valueLength = length(in, in.getInt());
            ByteBuffer value = in.slice(in.position(), valueLength);
            in.position(in.position() + valueLength);
            int count = in.getShort() & 0xffff;
            // Each header takes at least 6 bytes: a claimed count beyond that is a lie, not an allocation.
            if (count > in.remaining() / 6) {
                throw new IllegalArgumentException("packed headers: " + count + " headers claimed in " + in.remaining() + " bytes");
            }
            Header[] headers = new Header[count];
            for (int i = 0; i < headers.length; i++) {
                byte[] name = new byte[length(in, in.getShort() & 0xffff)];
                in.get(name);
                int length = in.getInt();
                byte[] v = null;
                if (length != -1) {
                    v = new byte[length(in, length)];
                    in.get(v);
                }
                headers[i] = new RecordHeader(new String(name, StandardCharsets.UTF_8), v);
            }
            return new RecordCipher.Plain(value, headers);
        } catch (BufferUnderflowException e) {
            throw new IllegalArgumentException("packed value and headers are truncated", e);
        }
    }

    private static int length(ByteBuffer in, int claimed) {
        if (claimed < 0 || claimed > in.remaining()) {
            throw new IllegalArgumentException("packed value and headers: length " + claimed + " with " + in.remaining() + " bytes left");
        }
        return claimed;
    }
}
