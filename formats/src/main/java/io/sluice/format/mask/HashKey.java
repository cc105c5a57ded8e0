package io.sluice.format.mask;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.util.Arrays;
import java.util.Base64;

import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

/**
 * The secret of {@code mask: hash}: HMAC-SHA256, so that equal values give equal hashes (joins and counts still work on
 * masked data) while nobody without the secret can test a guess against a hash, as they could against a plain SHA-256
 * of a card number. The key's bytes are never logged or printed ({@link #toString}).
 */
final class HashKey {

    static final int MIN_BYTES = 32;
    private static final int MAX_BYTES = 1024;
    private static final Base64.Encoder BASE64URL = Base64.getUrlEncoder().withoutPadding();

    private final SecretKeySpec key;
    // Mac instances are not thread-safe; one per thread, made from the key once.
    private final ThreadLocal<Mac> macs;

    private HashKey(byte[] secret) {
        this.key = new SecretKeySpec(secret, "HmacSHA256");
        this.macs = ThreadLocal.withInitial(this::newMac);
    }

    /** For tests and embedding. */
    static HashKey of(byte[] secret) {
        if (secret.length < MIN_BYTES) {
            throw new IllegalArgumentException("a hash key needs at least " + MIN_BYTES + " bytes, not " + secret.length);
        }
        return new HashKey(secret.clone());
    }

    /**
     * Reads the file's bytes without trailing whitespace (a newline an editor added is not part of the secret).
     *
     * @throws IllegalArgumentException naming {@code field} and the file, never its content
     */
    static HashKey read(String file, String field) {
        byte[] bytes;
        try {
            Path path = Path.of(file);
            if (Files.size(path) > MAX_BYTES) {
                throw new IllegalArgumentException(field + ": " + file + " holds more than " + MAX_BYTES + " bytes: not a key file");
            }
            bytes = Files.readAllBytes(path);
        } catch (IOException e) {
            throw new IllegalArgumentException(field + ": cannot read " + file + ": " + e.getClass().getSimpleName());
        }
        int end = bytes.length;
        while (end > 0 && Character.isWhitespace(bytes[end - 1])) {
            end--;
        }
        byte[] secret = Arrays.copyOf(bytes, end);
        Arrays.fill(bytes, (byte) 0);
        if (secret.length < MIN_BYTES) {
            throw new IllegalArgumentException(field + ": " + file + " holds " + secret.length + " bytes; a hash key needs at least " + MIN_BYTES);
        }
        return new HashKey(secret);
    }

    /** The value's hash, 43 characters of unpadded base64url. */
    String hash(String text) {
        Mac mac = macs.get();
        return BASE64URL.encodeToString(mac.doFinal(text.getBytes(StandardCharsets.UTF_8)));
    }

    private Mac newMac() {
        try {
            Mac mac = Mac.getInstance("HmacSHA256");
            mac.init(key);
            return mac;
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("HmacSHA256 is part of every Java runtime", e);
        }
    }

    @Override
    public String toString() {
        return "HashKey[HmacSHA256, secret not shown]";
    }
}
