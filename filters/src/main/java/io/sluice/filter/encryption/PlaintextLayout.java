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
 */
final class PlaintextLayout {

    private PlaintextLayout() {
    }

    static ByteBuffer pack(ByteBuffer value, Header[] headers) {
        int size = 4 + value.remaining() + 2;
        byte[][] names = new byte[headers.length][];
        for (int i = 0; i < headers.length; i++) {
            names[i] = headers[i].key().getBytes(StandardCharsets.UTF_8);
            size += 2 + names[i].length + 4 + (headers[i].value() == null ? 0 : headers[i].value().length);
        }
        ByteBuffer out = ByteBuffer.allocate(size);
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
