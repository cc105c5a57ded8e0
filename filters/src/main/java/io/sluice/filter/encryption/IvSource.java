package io.sluice.filter.encryption;

import java.security.SecureRandom;

/**
 * Random 96-bit GCM nonces, drawn from a {@link SecureRandom} a few thousand bytes at a time. The JDK's default
 * SecureRandom pays a fixed cost per call (a lock and a digest over its pool), which at one call per record was a
 * visible part of the encryption cost; the bytes are the same quality either way, and each is handed out once.
 *
 * <p>Not thread-safe: owned by one {@link RecordCipher}.</p>
 */
final class IvSource {

    private static final int IVS_PER_REFILL = 256;

    private final SecureRandom random;
    private final byte[] pool = new byte[EncryptedValue.IV_BYTES * IVS_PER_REFILL];
    private int next = pool.length;

    IvSource(SecureRandom random) {
        this.random = random;
    }

    byte[] next() {
        if (next == pool.length) {
            random.nextBytes(pool);
            next = 0;
        }
        byte[] iv = new byte[EncryptedValue.IV_BYTES];
        System.arraycopy(pool, next, iv, 0, iv.length);
        next += iv.length;
        return iv;
    }
}
