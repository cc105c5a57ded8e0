package io.sluice.kms.cache;

import java.time.Duration;

/**
 * Bounds on the cache of unwrapped (decryption) keys, keyed by wrapped form.
 *
 * @param maxEntries keys kept at most; the oldest are dropped first
 * @param expireAfter after this, a key is unwrapped again by the KMS on its next use; meanwhile, and while the KMS is
 *        unavailable, the cached key keeps serving. A key not used for this long is dropped. If the KMS then says the
 *        key is unknown or forbidden, it is dropped at once.
 */
public record UnwrappedKeyLimits(Integer maxEntries, Duration expireAfter) {

    public static final int DEFAULT_MAX_ENTRIES = 10_000;
    public static final Duration DEFAULT_EXPIRE_AFTER = Duration.ofHours(1);

    public UnwrappedKeyLimits {
        maxEntries = maxEntries == null ? DEFAULT_MAX_ENTRIES : maxEntries;
        expireAfter = expireAfter == null ? DEFAULT_EXPIRE_AFTER : expireAfter;
    }

    public static UnwrappedKeyLimits defaults() {
        return new UnwrappedKeyLimits(null, null);
    }

    void validate(String path) {
        if (maxEntries < 1) {
            throw new IllegalArgumentException(path + ".maxEntries: must be at least 1");
        }
        if (expireAfter.isZero() || expireAfter.isNegative()) {
            throw new IllegalArgumentException(path + ".expireAfter: must be positive");
        }
    }
}
