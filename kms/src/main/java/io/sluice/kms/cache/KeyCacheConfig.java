package io.sluice.kms.cache;

import java.time.Duration;

/**
 * Configuration of a {@link KeyCache}. Every field is optional; the defaults suit most deployments.
 *
 * <pre>{@code
 * dataKeys:      {maxRecords: 1000000, maxAge: 1h, maxEntries: 1000, maxIdle: 1h (maxAge), failureTtl: 30s, maxFailures: 1000}
 * unwrappedKeys: {maxEntries: 10000, expireAfter: 1h, failureTtl: 30s, maxFailures: 1000}
 * retry:         {maxAttempts: 5, initialBackoff: 100ms, maxBackoff: 2s, maxElapsed: 10s}
 * retiredKeyLifetime: 1m
 * }</pre>
 *
 * @param retiredKeyLifetime how long a key that left the cache (replaced, expired, evicted) stays usable before it is
 *        destroyed: callers that got it just before may still be encrypting or decrypting with it
 */
public record KeyCacheConfig(DataKeyLimits dataKeys, UnwrappedKeyLimits unwrappedKeys, RetryPolicy retry,
                             Duration retiredKeyLifetime) {

    public static final Duration DEFAULT_RETIRED_KEY_LIFETIME = Duration.ofMinutes(1);

    public KeyCacheConfig {
        dataKeys = dataKeys == null ? DataKeyLimits.defaults() : dataKeys;
        unwrappedKeys = unwrappedKeys == null ? UnwrappedKeyLimits.defaults() : unwrappedKeys;
        retry = retry == null ? RetryPolicy.defaults() : retry;
        retiredKeyLifetime = retiredKeyLifetime == null ? DEFAULT_RETIRED_KEY_LIFETIME : retiredKeyLifetime;
    }

    public static KeyCacheConfig defaults() {
        return new KeyCacheConfig(null, null, null, null);
    }

    /** @throws IllegalArgumentException {@code "field: why"} */
    public void validate() {
        dataKeys.validate("dataKeys");
        unwrappedKeys.validate("unwrappedKeys");
        retry.validate("retry");
        if (retiredKeyLifetime.isNegative()) {
            throw new IllegalArgumentException("retiredKeyLifetime: must not be negative");
        }
    }
}
