package io.sluice.filter.encryption;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.Provider;
import java.security.SecureRandom;
import java.util.Arrays;

import javax.crypto.AEADBadTagException;
import javax.crypto.Cipher;
import javax.crypto.SecretKey;
import javax.crypto.spec.GCMParameterSpec;

import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.header.internals.RecordHeader;

/**
 * AES-256-GCM for one record at a time. The associated data binds the ciphertext to its topic and record
 * key, so a value copied to another topic or under another key fails to decrypt instead of passing as
 * genuine, and (format v2) to every byte of its envelope, so that no field a reader acts on (version, flags,
 * KEK name, wrapped key, IV) can be changed without the tag failing. With headers encryption, the plaintext is the
 * value and the headers together (the names are hidden too) and the record keeps only the marker header.
 *
 * <p>Not thread-safe: one per filter instance, i.e. per connection, used on its event loop.</p>
 */
public final class RecordCipher {

    /** Present on every encrypted record; its value is the format version. */
    public static final String MARKER_HEADER = "sluice.encryption";
    private static final int TAG_BITS = 128;

    private final Cipher cipher;
    private final IvSource ivs;
    private final byte writeVersion;
    private final Header marker;
    // One per version, because each keeps its topic's bytes between records.
    private final AssociatedData aadV1 = new AssociatedData("sluice.v1");
    private final AssociatedData aadV2 = new AssociatedData("sluice.v2");
    private byte[] scratch = new byte[4096];
    // Records of one batch share a KEK: encode its name once, not per record.
    private String lastKekName;
    private byte[] lastKekBytes;

    /** A cipher that writes the current format, {@link EncryptedValue#VERSION}, with the JDK's AES-GCM. */
    public RecordCipher() {
        this(EncryptedValue.VERSION, null);
    }

    /**
     * @param writeVersion the format new records get: 2, or 1 only while proxies that cannot read 2 still serve
     *                     the same topics (a rolling upgrade); every version is read whatever this says
     * @param aesGcm       where AES-GCM comes from ({@link AesGcmProvider#resolve}); null for the JDK's
     */
    public RecordCipher(byte writeVersion, Provider aesGcm) {
        if (writeVersion != EncryptedValue.VERSION && writeVersion != EncryptedValue.VERSION_1) {
            throw new IllegalArgumentException("unknown encrypted value version " + writeVersion);
        }
        this.writeVersion = writeVersion;
        this.marker = new RecordHeader(MARKER_HEADER, new byte[] { writeVersion });
        this.cipher = AesGcmProvider.newCipher(aesGcm);
        this.ivs = new IvSource(new SecureRandom());
    }

    /** A value and headers as a producer sent them. */
    public record Plain(ByteBuffer value, Header[] headers) {
    }

    /** Bytes an encrypted value adds to its plaintext value, not counting encrypted headers: the prefix and the tag. */
    public static int overhead(int wrappedKeyLength, String kekName) {
        return EncryptedValue.prefixSize(wrappedKeyLength, kekName.getBytes(StandardCharsets.UTF_8).length) + TAG_BITS / 8;
    }

    /**
     * @throws UnencryptableRecordException when a length or count of the record, its headers (when they are encrypted),
     *                                      the wrapped key or the KEK name does not fit its field in the format: nothing
     *                                      is encrypted, and the caller must not write the record
     */
    public EncryptedRecord encrypt(String topic, ByteBuffer key, Plain plain, SecretKey dataKey, byte[] wrappedKey, String kekName, boolean withHeaders) {
        byte[] iv = ivs.next();
        ByteBuffer plaintext = withHeaders ? PlaintextLayout.pack(plain.value(), plain.headers()) : plain.value().duplicate();
        byte[] kek = kekBytes(kekName);
        try {
            cipher.init(Cipher.ENCRYPT_MODE, dataKey, new GCMParameterSpec(TAG_BITS, iv));
            // The value is written in its final layout: the prefix, then the cipher's output straight after it.
            int prefix = EncryptedValue.prefixSize(wrappedKey.length, kek.length);
            ByteBuffer value = ByteBuffer.allocate(UnencryptableRecordException.checkLength("an encrypted value",
                    (long) prefix + cipher.getOutputSize(plaintext.remaining()), Integer.MAX_VALUE - 8));
            EncryptedValue.writePrefix(value, writeVersion, withHeaders ? EncryptedValue.FLAG_HEADERS : 0, wrappedKey, kek, iv);
            // One updateAAD call per record: with ACCP each call crosses into native code, and the AAD of two calls
            // is their concatenation, so the envelope is copied (a hundred bytes) in front of the topic and key.
            AssociatedData aad = writeVersion == EncryptedValue.VERSION ? aadV2.of(value, 0, prefix, topic, key) : aadV1.of(null, 0, 0, topic, key);
            cipher.updateAAD(aad.bytes(), 0, aad.length());
            value.limit(prefix + doFinal(plaintext, value.array(), prefix)).rewind();
            return new EncryptedRecord(value, withHeaders ? new Header[] { marker } : withMarker(plain.headers(), marker));
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("AES-GCM encryption failed", e);
        }
    }

    private byte[] kekBytes(String kekName) {
        if (!kekName.equals(lastKekName)) {
            lastKekName = kekName;
            lastKekBytes = kekName.getBytes(StandardCharsets.UTF_8);
        }
        return lastKekBytes;
    }

    private static Header[] withMarker(Header[] headers, Header marker) {
        Header[] marked = new Header[headers.length + 1];
        marked[0] = marker;
        System.arraycopy(headers, 0, marked, 1, headers.length);
        return marked;
    }

    /** An encrypted value and the headers the record carries with it. */
    public record EncryptedRecord(ByteBuffer value, Header[] headers) {
    }

    /**
     * @throws AEADBadTagException when the ciphertext, topic, key, data key or (v2) any envelope field do not match:
     *                             tampering or the wrong key
     * @throws IllegalArgumentException when the data key is unusable, or a v1 value flagged as packed is not
     */
    public Plain decrypt(String topic, ByteBuffer key, EncryptedValue value, Header[] recordHeaders, SecretKey dataKey) throws AEADBadTagException {
        try {
            cipher.init(Cipher.DECRYPT_MODE, dataKey, new GCMParameterSpec(TAG_BITS, value.iv()));
            ByteBuffer envelope = value.envelope();
            AssociatedData aad = value.version() == EncryptedValue.VERSION ? aadV2.of(envelope, envelope.position(), envelope.remaining(), topic, key)
                    : aadV1.of(null, 0, 0, topic, key);
            cipher.updateAAD(aad.bytes(), 0, aad.length());
            ByteBuffer plaintext = ByteBuffer.allocate(cipher.getOutputSize(value.ciphertext().remaining()));
            plaintext.limit(doFinal(value.ciphertext(), plaintext.array(), 0));
            if (value.headersEncrypted()) {
                return PlaintextLayout.unpack(plaintext);
            }
            return new Plain(plaintext, withoutMarker(recordHeaders));
        } catch (AEADBadTagException e) {
            throw e;
        } catch (GeneralSecurityException e) {
            // The key and IV come from the record (its wrapped key is whatever the writer put there): a key the KMS
            // unwrapped to the wrong size is the record's fault, not the proxy's.
            throw new IllegalArgumentException("AES-GCM decryption failed: " + e.getMessage(), e);
        }
    }

    /**
     * Through the byte-array API: on Java 17 it is 15–25 % faster than the ByteBuffer one for record-sized inputs
     * (measured with 1 KiB records). Records the proxy decodes in place are views into Netty's direct buffers; the
     * JDK would copy those to an array internally, so they are copied into one reused array here instead.
     */
    private int doFinal(ByteBuffer input, byte[] output, int outputOffset) throws GeneralSecurityException {
        if (input.hasArray()) {
            return cipher.doFinal(input.array(), input.arrayOffset() + input.position(), input.remaining(), output, outputOffset);
        }
        int length = input.remaining();
        if (scratch.length < length) {
            scratch = new byte[Math.max(length, scratch.length * 2)];
        }
        input.get(input.position(), scratch, 0, length);
        return cipher.doFinal(scratch, 0, length, output, outputOffset);
    }

    private static Header[] withoutMarker(Header[] headers) {
        int markers = 0;
        for (Header h : headers) {
            if (MARKER_HEADER.equals(h.key())) {
                markers++;
            }
        }
        Header[] rest = new Header[headers.length - markers];
        int i = 0;
        for (Header h : headers) {
            if (!MARKER_HEADER.equals(h.key())) {
                rest[i++] = h;
            }
        }
        return rest;
    }

    /**
     * [envelope (v2)] || label || topic length (2) || topic || key length (4, -1 for none) || key, built in one reused
     * array and fed to the cipher in one call: it is computed for every record, the topic's bytes are the same for a
     * whole partition and the envelope's length for a whole data key. The label is "sluice.v1" or "sluice.v2".
     */
    private static final class AssociatedData {
        private final byte[] label;
        private byte[] bytes = new byte[512];
        private int length;
        private String topic;
        private byte[] topicBytes;
        private int envelopeLength = -1;
        private int keyOffset;

        AssociatedData(String label) {
            this.label = label.getBytes(StandardCharsets.US_ASCII);
        }

        /** @param envelope the envelope's bytes at {@code offset} (absolute), or null when it is not bound (v1) */
        AssociatedData of(ByteBuffer envelope, int offset, int envelopeLength, String topic, ByteBuffer key) {
            if (!topic.equals(this.topic)) {
                byte[] encoded = topic.getBytes(StandardCharsets.UTF_8);
                // Kafka strings stop at 32,767 bytes, so this never fires for a name off the wire; it keeps the field honest.
                UnencryptableRecordException.checkLength("a topic name", encoded.length, 0xffff);
                this.topic = topic;
                this.topicBytes = encoded;
                this.envelopeLength = -1;
            }
            if (envelopeLength != this.envelopeLength) {
                ensure(envelopeLength + label.length + 2 + topicBytes.length);
                ByteBuffer out = ByteBuffer.wrap(bytes, envelopeLength, bytes.length - envelopeLength);
                out.put(label).putShort((short) topicBytes.length).put(topicBytes);
                this.envelopeLength = envelopeLength;
                this.keyOffset = out.position();
            }
            if (envelope != null) {
                envelope.get(offset, bytes, 0, envelopeLength);
            }
            int keyLength = key == null ? -1 : key.remaining();
            ensure(keyOffset + 4 + Math.max(0, keyLength));
            // Written into the array directly: no buffer objects per record.
            bytes[keyOffset] = (byte) (keyLength >>> 24);
            bytes[keyOffset + 1] = (byte) (keyLength >>> 16);
            bytes[keyOffset + 2] = (byte) (keyLength >>> 8);
            bytes[keyOffset + 3] = (byte) keyLength;
            if (key != null) {
                key.get(key.position(), bytes, keyOffset + 4, keyLength);
            }
            length = keyOffset + 4 + Math.max(0, keyLength);
            return this;
        }

        private void ensure(int size) {
            if (bytes.length < size) {
                bytes = Arrays.copyOf(bytes, Math.max(size, bytes.length * 2));
            }
        }

        byte[] bytes() {
            return bytes;
        }

        int length() {
            return length;
        }
    }

    /** True when the record carries the encryption marker header. */
    public static boolean isEncrypted(Header[] headers) {
        for (Header h : headers) {
            if (MARKER_HEADER.equals(h.key())) {
                return true;
            }
        }
        return false;
    }
}
