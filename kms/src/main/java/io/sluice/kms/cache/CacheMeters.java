package io.sluice.kms.cache;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.sluice.kms.metrics.MeteredKms;

/**
 * One cache's meters: {@code sluice.kms.cache.requests{cache, result}} with result {@code hit} (served from the cache),
 * {@code stale} (served from the cache past its age while a replacement is fetched or the KMS is unavailable) or
 * {@code miss} (waited for the KMS) or {@code refused} (answered with a refusal the KMS gave recently, without asking
 * it again); {@code sluice.kms.cache.failures{cache, reason}} for requests that failed after retries; and
 * {@code sluice.kms.cache.evictions{cache, reason}} for entries dropped to stay within the cache's size ({@code size})
 * or because nobody used them ({@code idle}).
 */
final class CacheMeters {

    static final String REQUESTS = "sluice.kms.cache.requests";
    static final String FAILURES = "sluice.kms.cache.failures";
    static final String EVICTIONS = "sluice.kms.cache.evictions";

    private final MeterRegistry registry;
    private final String cache;
    private final Counter hits;
    private final Counter stale;
    private final Counter misses;
    private final Counter refused;
    private final Counter evictedForSize;
    private final Counter evictedIdle;

    CacheMeters(MeterRegistry registry, String cache) {
        this.registry = registry;
        this.cache = cache;
        this.hits = requests("hit");
        this.stale = requests("stale");
        this.misses = requests("miss");
        this.refused = requests("refused");
        this.evictedForSize = evictions("size");
        this.evictedIdle = evictions("idle");
    }

    private Counter evictions(String reason) {
        return Counter.builder(EVICTIONS).description("Entries dropped from the KMS key caches: over their size, or unused")
                .tag("cache", cache).tag("reason", reason).register(registry);
    }

    private Counter requests(String result) {
        return Counter.builder(REQUESTS).description("Key requests to the KMS key caches, by result")
                .tag("cache", cache).tag("result", result).register(registry);
    }

    void hit() {
        hits.increment();
    }

    void stale() {
        stale.increment();
    }

    void miss() {
        misses.increment();
    }

    void refused() {
        refused.increment();
    }

    /** @param reason {@code size} or {@code idle} */
    void evicted(String reason) {
        ("size".equals(reason) ? evictedForSize : evictedIdle).increment();
    }

    void failure(Throwable failure) {
        Counter.builder(FAILURES).description("Key requests that failed after retries, by reason")
                .tag("cache", cache).tag("reason", MeteredKms.outcome(failure)).register(registry).increment();
    }
}
