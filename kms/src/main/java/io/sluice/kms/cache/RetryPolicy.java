package io.sluice.kms.cache;

import java.time.Duration;

/**
 * Retries of KMS calls that failed with {@link io.sluice.kms.KmsUnavailableException}, never of other failures.
 * Delays grow exponentially from {@code initialBackoff} to {@code maxBackoff}, each drawn at random from its upper
 * half (so that proxies that lost the KMS together do not return together).
 *
 * @param maxAttempts calls at most, the first included (1 = no retry)
 * @param initialBackoff delay bound before the second attempt
 * @param maxBackoff delay bound never exceeded
 * @param maxElapsed no attempt starts later than this after the first
 */
public record RetryPolicy(Integer maxAttempts, Duration initialBackoff, Duration maxBackoff, Duration maxElapsed) {

    public static final int DEFAULT_MAX_ATTEMPTS = 5;
    public static final Duration DEFAULT_INITIAL_BACKOFF = Duration.ofMillis(100);
    public static final Duration DEFAULT_MAX_BACKOFF = Duration.ofSeconds(2);
    public static final Duration DEFAULT_MAX_ELAPSED = Duration.ofSeconds(10);

    public RetryPolicy {
        maxAttempts = maxAttempts == null ? DEFAULT_MAX_ATTEMPTS : maxAttempts;
        initialBackoff = initialBackoff == null ? DEFAULT_INITIAL_BACKOFF : initialBackoff;
        maxBackoff = maxBackoff == null ? DEFAULT_MAX_BACKOFF : maxBackoff;
        maxElapsed = maxElapsed == null ? DEFAULT_MAX_ELAPSED : maxElapsed;
    }

    public static RetryPolicy defaults() {
        return new RetryPolicy(null, null, null, null);
    }

    void validate(String path) {
        if (maxAttempts < 1) {
            throw new IllegalArgumentException(path + ".maxAttempts: must be at least 1");
        }
        if (initialBackoff.isNegative() || initialBackoff.isZero()) {
            throw new IllegalArgumentException(path + ".initialBackoff: must be positive");
        }
        if (maxBackoff.compareTo(initialBackoff) < 0) {
            throw new IllegalArgumentException(path + ".maxBackoff: must not be less than initialBackoff");
        }
        if (maxElapsed.isNegative()) {
            throw new IllegalArgumentException(path + ".maxElapsed: must not be negative");
        }
    }
}
