package io.sluice.filter.encryption;

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

    static RecordCipher.Plain unpack(ByteBuffer in) {
        int valueLength = in.getInt();
        ByteBuffer value = in.slice(in.position(), valueLength);
        in.position(in.position() + valueLength);
        Header[] headers = new Header[in.getShort() & 0xffff];
        for (int i = 0; i < headers.length; i++) {
            byte[] name = new byte[in.getShort() & 0xffff];
            in.get(name);
            int length = in.getInt();
            byte[] v = null;
            if (length >= 0) {
                v = new byte[length];
                in.get(v);
            }
            headers[i] = new RecordHeader(new String(name, StandardCharsets.UTF_8), v);
        }
        return new RecordCipher.Plain(value, headers);
    }
}
