package io.sluice.kms.cache;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.sluice.kms.metrics.MeteredKms;

/**
 * One cache's meters: {@code sluice.kms.cache.requests{cache, result}} with result {@code hit} (served from the cache),
 * {@code stale} (served from the cache past its age while a replacement is fetched or the KMS is unavailable) or
 * {@code miss} (waited for the KMS) or {@code refused} (answered with a refusal the KMS gave recently, without asking
 * it again); and {@code sluice.kms.cache.failures{cache, reason}} for requests that failed
 * after retries.
 */
final class CacheMeters {

    static final String REQUESTS = "sluice.kms.cache.requests";
    static final String FAILURES = "sluice.kms.cache.failures";

    private final MeterRegistry registry;
    private final String cache;
    private final Counter hits;
    private final Counter stale;
    private final Counter misses;
    private final Counter refused;

    CacheMeters(MeterRegistry registry, String cache) {
        this.registry = registry;
        this.cache = cache;
        this.hits = requests("hit");
        this.stale = requests("stale");
        this.misses = requests("miss");
        this.refused = requests("refused");
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

    void failure(Throwable failure) {
        Counter.builder(FAILURES).description("Key requests that failed after retries, by reason")
                .tag("cache", cache).tag("reason", MeteredKms.outcome(failure)).register(registry).increment();
    }
}
