package io.sluice.kms;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.Objects;

/**
 * A data key encrypted by a KEK, with the KEK's name: everything needed to get the plaintext key back, even after the
 * KEK has been rotated, because the ciphertext names the KEK version that made it (Vault's {@code vault:v3:...}).
 *
 * <p>Not secret. Store it beside the data it protects, as {@link #toBytes()}, and read it back with
 * {@link #parse(byte[])}. Equal when name and ciphertext are equal, so it serves as a cache key.
 */
public final class WrappedKey {

    /** First byte of {@link #toBytes()}: lets the layout change later without guessing. */
    private static final byte FORMAT = 1;
    private static final int MAX_NAME_BYTES = 0xFFFF;

    private final String kekName;
    private final byte[] ciphertext;
    private final int hash;

    /**
     * @param kekName the KEK that wrapped the data key
     * @param ciphertext the KMS's ciphertext of the data key, in the KMS's own format; copied
     */
    public WrappedKey(String kekName, byte[] ciphertext) {
        Objects.requireNonNull(kekName, "kekName");
        Objects.requireNonNull(ciphertext, "ciphertext");
        if (kekName.isEmpty() || kekName.getBytes(StandardCharsets.UTF_8).length > MAX_NAME_BYTES) {
            throw new IllegalArgumentException("a KEK name must have 1 to 65535 bytes");
        }
        if (ciphertext.length == 0) {
            throw new IllegalArgumentException("a wrapped key must not be empty");
        }
        this.kekName = kekName;
        this.ciphertext = ciphertext.clone();
        this.hash = 31 * kekName.hashCode() + Arrays.hashCode(this.ciphertext);
    }

    public String kekName() {
        return kekName;
    }

    /** The KMS's ciphertext (a copy). */
    public byte[] ciphertext() {
        return ciphertext.clone();
    }

    /** The ciphertext as text, for KMSs whose ciphertexts are text (Vault's are ASCII). */
    public String ciphertextText() {
        return new String(ciphertext, StandardCharsets.US_ASCII);
    }

    /** A compact self-contained form: format byte, name length (2 bytes), UTF-8 name, ciphertext. */
    public byte[] toBytes() {
        byte[] name = kekName.getBytes(StandardCharsets.UTF_8);
        return ByteBuffer.allocate(3 + name.length + ciphertext.length)
                .put(FORMAT)
                .putShort((short) name.length)
                .put(name)
                .put(ciphertext)
                .array();
    }

    /**
     * Reads the form written by {@link #toBytes()}.
     *
     * @throws KmsException if the bytes are not such a form (corrupt or from something else)
     */
    public static WrappedKey parse(byte[] bytes) {
        if (bytes == null || bytes.length < 4 || bytes[0] != FORMAT) {
            throw new KmsException("not a wrapped key: unknown format");
        }
        ByteBuffer buffer = ByteBuffer.wrap(bytes);
        buffer.get();
        int nameLength = Short.toUnsignedInt(buffer.getShort());
        if (nameLength == 0 || buffer.remaining() <= nameLength) {
            throw new KmsException("not a wrapped key: bad length");
        }
        String name = new String(bytes, 3, nameLength, StandardCharsets.UTF_8);
        return new WrappedKey(name, Arrays.copyOfRange(bytes, 3 + nameLength, bytes.length));
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof WrappedKey other && hash == other.hash && kekName.equals(other.kekName)
                && Arrays.equals(ciphertext, other.ciphertext);
    }

    @Override
    public int hashCode() {
        return hash;
    }

    @Override
    public String toString() {
        return "WrappedKey[kek=" + kekName + ", " + ciphertext.length + " bytes]";
    }
}
