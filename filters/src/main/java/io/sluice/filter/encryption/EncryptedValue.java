package io.sluice.filter.encryption;

import java.nio.BufferUnderflowException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;

/**
 * The byte layout of an encrypted record value (documented byte by byte in docs/encryption-format.md):
 *
 * <pre>
 *   version        1 byte   0x02 (written), 0x01 (still read)
 *   flags          1 byte   bit 0: the record's headers are inside the ciphertext; other bits must be 0 in v2
 *   wrapped length 2 bytes  unsigned, big-endian
 *   wrapped key    n bytes  the data key as the KMS wrapped it (self-describing, e.g. "vault:v3:...")
 *   kek length     2 bytes  unsigned, big-endian
 *   kek name       m bytes  UTF-8: which key-encryption key unwraps it
 *   iv             12 bytes per record
 *   ciphertext     rest     AES-256-GCM output, the 16-byte tag last
 * </pre>
 *
 * Both versions share the layout; they differ in what the GCM associated data covers ({@link RecordCipher}): in v2
 * every byte before the ciphertext (the {@link #envelope()}), in v1 only the topic and key.
 *
 * <p>Every record carries its own wrapped key, because records are read, compacted and deleted one by one.</p>
 *
 * @param envelope the value's bytes from the version byte to the end of the IV, as stored: a view of the value between
 *                 its position and limit, not a copy
 */
public record EncryptedValue(int version, int flags, byte[] wrappedKey, String kekName, byte[] iv, ByteBuffer envelope, ByteBuffer ciphertext) {

    /** The version written. */
    public static final byte VERSION = 2;
    /** The first version: still read, never written. Its associated data leaves the envelope unauthenticated. */
    public static final byte VERSION_1 = 1;
    public static final int FLAG_HEADERS = 1;
    public static final int IV_BYTES = 12;
    static final int TAG_BYTES = 16;

    public boolean headersEncrypted() {
        return (flags & FLAG_HEADERS) != 0;
    }

    /** The longest wrapped key and KEK name (UTF-8 bytes): their length fields are 2 bytes, unsigned. */
    static final int MAX_NAME_BYTES = 0xffff;

    /**
     * Bytes before the ciphertext: version, flags, both length-prefixed names and the IV.
     *
     * @throws UnencryptableRecordException when the wrapped key or KEK name is longer than its length field can say
     */
    static int prefixSize(int wrappedKeyLength, int kekNameLength) {
        UnencryptableRecordException.checkLength("a wrapped data key", wrappedKeyLength, MAX_NAME_BYTES);
        UnencryptableRecordException.checkLength("a KEK name", kekNameLength, MAX_NAME_BYTES);
        return 1 + 1 + 2 + wrappedKeyLength + 2 + kekNameLength + IV_BYTES;
    }

    /** Writes everything before the ciphertext, so the cipher can write its output straight after it. */
    static void writePrefix(ByteBuffer out, byte version, int flags, byte[] wrappedKey, byte[] kekName, byte[] iv) {
        out.put(version).put((byte) flags)
                .putShort((short) wrappedKey.length).put(wrappedKey)
                .putShort((short) kekName.length).put(kekName)
                .put(iv);
    }

    /**
     * Parses a value; {@link IllegalArgumentException} with what is wrong when its version is unknown, a v2 value has
     * flag bits this reader does not know (a reader must not guess what they would mean), or it is cut short.
     */
    public static EncryptedValue parse(ByteBuffer value) {
        ByteBuffer in = value.duplicate();
        try {
            byte version = in.get();
            if (version != VERSION && version != VERSION_1) {
                throw new IllegalArgumentException("unknown encrypted value version " + version);
            }
            int flags = in.get() & 0xff;
            if (version == VERSION && (flags & ~FLAG_HEADERS) != 0) {
                throw new IllegalArgumentException("unknown flags 0x" + Integer.toHexString(flags) + " in a version 2 value");
            }
            byte[] wrapped = new byte[in.getShort() & 0xffff];
            in.get(wrapped);
            byte[] kek = new byte[in.getShort() & 0xffff];
            in.get(kek);
            byte[] iv = new byte[IV_BYTES];
            in.get(iv);
            if (wrapped.length == 0 || kek.length == 0) {
                throw new IllegalArgumentException("empty wrapped key or KEK name");
            }
            if (in.remaining() < TAG_BYTES) {
                throw new IllegalArgumentException("ciphertext shorter than the GCM tag");
            }
            ByteBuffer ciphertext = in.slice();
            // The reading view becomes the envelope's, for the associated data: no copy, and no second view per record.
            ByteBuffer envelope = in.limit(in.position()).position(value.position());
            return new EncryptedValue(version, flags, wrapped, new String(kek, StandardCharsets.UTF_8), iv, envelope, ciphertext);
        } catch (BufferUnderflowException e) {
            throw new IllegalArgumentException("encrypted value is truncated", e);
        }
    }
}
