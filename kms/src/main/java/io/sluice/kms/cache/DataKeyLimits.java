package io.sluice.kms.cache;

import java.time.Duration;

/**
 * How long one data key is used before it is replaced.
 *
 * @param maxRecords records encrypted under one data key, at most. Each record gets a random 96-bit GCM nonce, and
 *        NIST SP 800-38D caps random nonces at 2^32 per key (collision odds 2^-32); the default of 1,000,000 stays far
 *        below it. A hard limit: a key is never used for more.
 * @param maxAge after this, the key is replaced by the next request. The old key keeps serving until the new one
 *        arrives, and for as long as the KMS is unavailable (up to {@code maxRecords}).
 */
public record DataKeyLimits(Long maxRecords, Duration maxAge) {

    public static final long DEFAULT_MAX_RECORDS = 1_000_000L;
    public static final Duration DEFAULT_MAX_AGE = Duration.ofHours(1);
    /** The random-nonce bound itself; no configuration may go past it. */
    public static final long RANDOM_NONCE_LIMIT = 1L << 32;

    public DataKeyLimits {
        maxRecords = maxRecords == null ? DEFAULT_MAX_RECORDS : maxRecords;
        maxAge = maxAge == null ? DEFAULT_MAX_AGE : maxAge;
    }

    public static DataKeyLimits defaults() {
        return new DataKeyLimits(null, null);
    }

    void validate(String path) {
        if (maxRecords < 1 || maxRecords >= RANDOM_NONCE_LIMIT) {
            throw new IllegalArgumentException(path + ".maxRecords: must be between 1 and 2^32 - 1, not " + maxRecords);
        }
        if (maxAge.isZero() || maxAge.isNegative()) {
            throw new IllegalArgumentException(path + ".maxAge: must be positive");
        }
    }
}
