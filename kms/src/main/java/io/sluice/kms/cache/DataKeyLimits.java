package io.sluice.kms.cache;

import java.time.Duration;

/**
 * How long one data key is used before it is replaced, and how many KEKs the cache keeps one for.
 *
 * @param maxRecords records encrypted under one data key, at most. Each record gets a random 96-bit GCM nonce, and
 *        NIST SP 800-38D caps random nonces at 2^32 per key (collision odds 2^-32); the default of 1,000,000 stays far
 *        below it. A hard limit: a key is never used for more.
 * @param maxAge after this, the key is replaced by the next request. The old key keeps serving until the new one
 *        arrives, and for as long as the KMS is unavailable (up to {@code maxRecords}).
 * @param maxEntries KEKs the cache holds an entry (a data key, or a request for one under way) for, at most; past it
 *        the least recently used is dropped. KEK names can follow from topic names a client chooses (a template such as
 *        {@code kek-$(topic)} under a pattern such as {@code team-a.*}), so without a bound they would grow without end.
 * @param maxIdle an entry nobody asked for a key for this long is dropped with its key (default: {@code maxAge})
 * @param failureTtl how long the KMS's definite refusal of a KEK (unknown, forbidden, or another error that is not an
 *        outage) is the answer for that KEK without asking the KMS again; 0 remembers none. A topic whose KEK does not
 *        exist then costs one KMS call per {@code failureTtl}, not one per produce; a KEK created meanwhile is used at
 *        most {@code failureTtl} later. Outages ({@link io.sluice.kms.KmsUnavailableException}) are not remembered.
 * @param maxFailures refusals remembered at most, apart from {@code maxEntries} so that unknown KEKs cannot push live
 *        keys out; the oldest are forgotten first
 */
public record DataKeyLimits(Long maxRecords, Duration maxAge, Integer maxEntries, Duration maxIdle, Duration failureTtl, Integer maxFailures) {

    public static final long DEFAULT_MAX_RECORDS = 1_000_000L;
    public static final Duration DEFAULT_MAX_AGE = Duration.ofHours(1);
    public static final int DEFAULT_MAX_ENTRIES = 1_000;
    public static final Duration DEFAULT_FAILURE_TTL = Duration.ofSeconds(30);
    public static final int DEFAULT_MAX_FAILURES = 1_000;
    /** The random-nonce bound itself; no configuration may go past it. */
    public static final long RANDOM_NONCE_LIMIT = 1L << 32;

    public DataKeyLimits {
        maxRecords = maxRecords == null ? DEFAULT_MAX_RECORDS : maxRecords;
        maxAge = maxAge == null ? DEFAULT_MAX_AGE : maxAge;
        maxEntries = maxEntries == null ? DEFAULT_MAX_ENTRIES : maxEntries;
        maxIdle = maxIdle == null ? maxAge : maxIdle;
        failureTtl = failureTtl == null ? DEFAULT_FAILURE_TTL : failureTtl;
        maxFailures = maxFailures == null ? DEFAULT_MAX_FAILURES : maxFailures;
    }

    public DataKeyLimits(Long maxRecords, Duration maxAge) {
        this(maxRecords, maxAge, null, null, null, null);
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
        if (maxEntries < 1) {
            throw new IllegalArgumentException(path + ".maxEntries: must be at least 1, not " + maxEntries);
        }
        if (maxIdle.isZero() || maxIdle.isNegative()) {
            throw new IllegalArgumentException(path + ".maxIdle: must be positive");
        }
        if (failureTtl.isNegative()) {
            throw new IllegalArgumentException(path + ".failureTtl: must not be negative (0 remembers no refusal)");
        }
        if (maxFailures < 1) {
            throw new IllegalArgumentException(path + ".maxFailures: must be at least 1, not " + maxFailures);
        }
    }
}
