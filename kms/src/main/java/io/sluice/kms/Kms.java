package io.sluice.kms;

import java.util.concurrent.CompletionStage;

import javax.crypto.SecretKey;

/**
 * A key management service that keeps key-encryption keys (KEKs) and wraps data keys with them. The KEKs never leave
 * the KMS; data keys do, in plaintext for use and wrapped for storage.
 *
 * <p>Every method is asynchronous and never blocks the calling thread, so it may be called from an event loop. A stage
 * may complete on any thread. Failures are {@link KmsException}s:
 * {@link UnknownKeyException}, {@link KmsForbiddenException}, {@link KmsUnavailableException} (the only retriable one),
 * or a plain {@code KmsException}.
 *
 * <p>Implementations do not cache or retry; wrap one in {@link io.sluice.kms.cache.KeyCache} for that. They are
 * thread-safe. Plaintext keys are never logged.
 */
public interface Kms extends AutoCloseable {

    /**
     * Checks that a KEK exists and can be used, and learns its latest version.
     *
     * @param name the KEK's name in the KMS
     * @return the KEK, or a failure with {@link UnknownKeyException} if there is none by that name
     */
    CompletionStage<KekRef> resolveKek(String name);

    /**
     * A new random AES-256 data key, wrapped with the latest version of the KEK (whatever {@code kek.version()} says).
     * The caller owns the result and should {@link DataKey#destroy()} it when done.
     */
    CompletionStage<DataKey> generateDataKey(KekRef kek);

    /**
     * The plaintext of a wrapped data key. Works for keys wrapped by any version of the KEK that the KMS still has, so
     * rotating the KEK does not strand old data.
     *
     * @return the key; the caller owns it and may destroy it
     */
    CompletionStage<SecretKey> unwrap(WrappedKey wrapped);

    /** Releases connections and background threads; later calls fail. */
    @Override
    default void close() {
    }
}
