package io.sluice.kms.cache;

import java.time.Duration;

/**
 * Bounds on the cache of unwrapped (decryption) keys, keyed by wrapped form.
 *
 * @param maxEntries keys kept at most; the oldest are dropped first
 * @param expireAfter after this, a key is unwrapped again by the KMS on its next use; meanwhile, and while the KMS is
 *        unavailable, the cached key keeps serving. A key not used for this long is dropped. If the KMS then says the
 *        key is unknown or forbidden, it is dropped at once.
 * @param failureTtl how long a wrapped key the KMS refused to unwrap (unknown, forbidden, not its ciphertext) is
 *        answered with that refusal without asking the KMS again: a record with a bogus wrapped key must not cost a KMS
 *        call every time a consumer fetches it. Outages ({@link io.sluice.kms.KmsUnavailableException}) are not
 *        remembered.
 * @param maxFailures refusals remembered at most, apart from {@code maxEntries} so that bogus keys cannot push good
 *        keys out; the oldest are forgotten first
 */
public record UnwrappedKeyLimits(Integer maxEntries, Duration expireAfter, Duration failureTtl, Integer maxFailures) {

    public static final int DEFAULT_MAX_ENTRIES = 10_000;
    public static final Duration DEFAULT_EXPIRE_AFTER = Duration.ofHours(1);
    public static final Duration DEFAULT_FAILURE_TTL = Duration.ofSeconds(30);
    public static final int DEFAULT_MAX_FAILURES = 1_000;

    public UnwrappedKeyLimits {
        maxEntries = maxEntries == null ? DEFAULT_MAX_ENTRIES : maxEntries;
        expireAfter = expireAfter == null ? DEFAULT_EXPIRE_AFTER : expireAfter;
        failureTtl = failureTtl == null ? DEFAULT_FAILURE_TTL : failureTtl;
        maxFailures = maxFailures == null ? DEFAULT_MAX_FAILURES : maxFailures;
    }

    public UnwrappedKeyLimits(Integer maxEntries, Duration expireAfter) {
        this(maxEntries, expireAfter, null, null);
    }

    public static UnwrappedKeyLimits defaults() {
        return new UnwrappedKeyLimits(null, null, null, null);
    }

    void validate(String path) {
        if (maxEntries < 1) {
            throw new IllegalArgumentException(path + ".maxEntries: must be at least 1");
        }
        if (expireAfter.isZero() || expireAfter.isNegative()) {
            throw new IllegalArgumentException(path + ".expireAfter: must be positive");
        }
        if (failureTtl.isNegative()) {
            throw new IllegalArgumentException(path + ".failureTtl: must not be negative (0 remembers no refusal)");
        }
        if (maxFailures < 1) {
            throw new IllegalArgumentException(path + ".maxFailures: must be at least 1");
        }
    }
}
