package io.sluice.filter.encryption;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;

/**
 * The byte layout of an encrypted record value, version 1 (documented byte by byte in
 * docs/encryption-format.md):
 *
 * <pre>
 *   version        1 byte   0x01
 *   flags          1 byte   bit 0: the record's headers are inside the ciphertext
 *   wrapped length 2 bytes  unsigned, big-endian
 *   wrapped key    n bytes  the data key as the KMS wrapped it (self-describing, e.g. "vault:v3:...")
 *   kek length     2 bytes  unsigned, big-endian
 *   kek name       m bytes  UTF-8: which key-encryption key unwraps it
 *   iv             12 bytes random, per record
 *   ciphertext     rest     AES-256-GCM output, the 16-byte tag last
 * </pre>
 *
 * Every record carries its own wrapped key, because records are read, compacted and deleted one by one.
 */
public record EncryptedValue(int flags, byte[] wrappedKey, String kekName, byte[] iv, ByteBuffer ciphertext) {

    public static final byte VERSION = 1;
    public static final int FLAG_HEADERS = 1;
    public static final int IV_BYTES = 12;

    public boolean headersEncrypted() {
        return (flags & FLAG_HEADERS) != 0;
    }

    /** The value's bytes: header fields, then the ciphertext. */
    public ByteBuffer encode() {
        byte[] kek = kekName.getBytes(StandardCharsets.UTF_8);
        ByteBuffer out = ByteBuffer.allocate(prefixSize(wrappedKey.length, kek.length) + ciphertext.remaining());
        writePrefix(out, flags, wrappedKey, kek, iv);
        out.put(ciphertext.duplicate());
        return out.flip();
    }

    /** Bytes before the ciphertext: version, flags, both length-prefixed names and the IV. */
    static int prefixSize(int wrappedKeyLength, int kekNameLength) {
        return 1 + 1 + 2 + wrappedKeyLength + 2 + kekNameLength + IV_BYTES;
    }

    /** Writes everything before the ciphertext, so the cipher can write its output straight after it. */
    static void writePrefix(ByteBuffer out, int flags, byte[] wrappedKey, byte[] kekName, byte[] iv) {
        out.put(VERSION).put((byte) flags)
                .putShort((short) wrappedKey.length).put(wrappedKey)
                .putShort((short) kekName.length).put(kekName)
                .put(iv);
    }

    /** Parses a value; {@link IllegalArgumentException} with what is wrong when it is not version 1 or is cut short. */
    public static EncryptedValue parse(ByteBuffer value) {
        ByteBuffer in = value.duplicate();
        try {
            byte version = in.get();
            if (version != VERSION) {
                throw new IllegalArgumentException("unknown encrypted value version " + version);
            }
            int flags = in.get() & 0xff;
            byte[] wrapped = new byte[in.getShort() & 0xffff];
            in.get(wrapped);
            byte[] kek = new byte[in.getShort() & 0xffff];
            in.get(kek);
            byte[] iv = new byte[IV_BYTES];
            in.get(iv);
            if (in.remaining() < 16) {
                throw new IllegalArgumentException("ciphertext shorter than the GCM tag");
            }
            return new EncryptedValue(flags, wrapped, new String(kek, StandardCharsets.UTF_8), iv, in.slice());
        } catch (java.nio.BufferUnderflowException e) {
            throw new IllegalArgumentException("encrypted value is truncated", e);
        }
    }
}
