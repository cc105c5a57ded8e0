package io.sluice.filter.encryption;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.SecureRandom;
import java.util.ArrayList;
import java.util.List;

import javax.crypto.AEADBadTagException;
import javax.crypto.Cipher;
import javax.crypto.SecretKey;
import javax.crypto.spec.GCMParameterSpec;

import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.header.internals.RecordHeader;

/**
 * AES-256-GCM for one record at a time. The associated data binds the ciphertext to its topic and record
 * key, so a value copied to another topic or under another key fails to decrypt instead of passing as
 * genuine. With headers encryption, the plaintext is the value and the headers together (the names are
 * hidden too) and the record keeps only the marker header.
 *
 * <p>Not thread-safe: one per filter instance, i.e. per connection, used on its event loop.</p>
 */
public final class RecordCipher {

    /** Present on every encrypted record; its value is the format version. */
    public static final String MARKER_HEADER = "sluice.encryption";
    private static final byte[] AAD_PREFIX = "sluice.v1".getBytes(StandardCharsets.US_ASCII);
    private static final int TAG_BITS = 128;

    private final Cipher cipher;
    private final SecureRandom random;

    public RecordCipher() {
        try {
            this.cipher = Cipher.getInstance("AES/GCM/NoPadding");
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("the JVM has no AES/GCM", e);
        }
        this.random = new SecureRandom();
    }

    /** A value and headers as a producer sent them. */
    public record Plain(ByteBuffer value, Header[] headers) {
    }

    public EncryptedRecord encrypt(String topic, ByteBuffer key, Plain plain, SecretKey dataKey, byte[] wrappedKey, String kekName, boolean withHeaders) {
        byte[] iv = new byte[EncryptedValue.IV_BYTES];
        random.nextBytes(iv);
        ByteBuffer plaintext = withHeaders ? PlaintextLayout.pack(plain.value(), plain.headers()) : plain.value().duplicate();
        try {
            cipher.init(Cipher.ENCRYPT_MODE, dataKey, new GCMParameterSpec(TAG_BITS, iv));
            cipher.updateAAD(aad(topic, key));
            ByteBuffer ciphertext = ByteBuffer.allocate(cipher.getOutputSize(plaintext.remaining()));
            cipher.doFinal(plaintext, ciphertext);
            ciphertext.flip();
            EncryptedValue value = new EncryptedValue(withHeaders ? EncryptedValue.FLAG_HEADERS : 0, wrappedKey, kekName, iv, ciphertext);
            List<Header> headers = new ArrayList<>();
            headers.add(new RecordHeader(MARKER_HEADER, new byte[] { EncryptedValue.VERSION }));
            if (!withHeaders) {
                headers.addAll(List.of(plain.headers()));
            }
            return new EncryptedRecord(value.encode(), headers.toArray(Header[]::new));
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("AES-GCM encryption failed", e);
        }
    }

    /** An encrypted value and the headers the record carries with it. */
    public record EncryptedRecord(ByteBuffer value, Header[] headers) {
    }

    /**
     * @throws AEADBadTagException when the ciphertext, topic, key or data key do not match: tampering or the wrong key
     */
    public Plain decrypt(String topic, ByteBuffer key, EncryptedValue value, Header[] recordHeaders, SecretKey dataKey) throws AEADBadTagException {
        try {
            cipher.init(Cipher.DECRYPT_MODE, dataKey, new GCMParameterSpec(TAG_BITS, value.iv()));
            cipher.updateAAD(aad(topic, key));
            ByteBuffer plaintext = ByteBuffer.allocate(cipher.getOutputSize(value.ciphertext().remaining()));
            cipher.doFinal(value.ciphertext().duplicate(), plaintext);
            plaintext.flip();
            if (value.headersEncrypted()) {
                return PlaintextLayout.unpack(plaintext);
            }
            List<Header> headers = new ArrayList<>();
            for (Header h : recordHeaders) {
                if (!MARKER_HEADER.equals(h.key())) {
                    headers.add(h);
                }
            }
            return new Plain(plaintext, headers.toArray(Header[]::new));
        } catch (AEADBadTagException e) {
            throw e;
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("AES-GCM decryption failed: " + e.getMessage(), e);
        }
    }

    /** "sluice.v1" || topic length (2) || topic || key length (4, -1 for none) || key. */
    private static byte[] aad(String topic, ByteBuffer key) {
        byte[] topicBytes = topic.getBytes(StandardCharsets.UTF_8);
        int keyLength = key == null ? -1 : key.remaining();
        ByteBuffer aad = ByteBuffer.allocate(AAD_PREFIX.length + 2 + topicBytes.length + 4 + Math.max(0, keyLength));
        aad.put(AAD_PREFIX).putShort((short) topicBytes.length).put(topicBytes).putInt(keyLength);
        if (key != null) {
            aad.put(key.duplicate());
        }
        return aad.array();
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
