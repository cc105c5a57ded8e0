package io.sluice.filter.quota;

import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;

/**
 * The {@link PrincipalUsage} of every principal with traffic in the window, by name: one per filter definition, so
 * every connection of a principal on this node counts against the same rates. A principal is tracked while anything it
 * did is still in the window and evicted by {@link #sweep} once nothing is: what is dropped is a rate that reads zero,
 * so reconnecting cannot reset a quota, and the map holds only the principals active in the last window.
 */
final class QuotaUsages {

    private final long windowNanos;
    private final int samples;
    private final QuotaMetrics metrics;
    private final ConcurrentMap<String, PrincipalUsage> byPrincipal = new ConcurrentHashMap<>();

    QuotaUsages(long windowNanos, int samples, QuotaMetrics metrics) {
        this.windowNanos = windowNanos;
        this.samples = samples;
        this.metrics = metrics;
    }

    /** The principal's usage, created on first use; a caller may keep it until {@link PrincipalUsage#record} says it was evicted. */
    PrincipalUsage usage(String principal) {
        return byPrincipal.computeIfAbsent(principal, p -> {
            PrincipalUsage usage = new PrincipalUsage(windowNanos, samples, metrics.series(p));
            usage.series().attach(usage);
            return usage;
        });
    }

    /** Drops the principals with nothing in the window; returns how many are left. */
    int sweep(long now) {
        byPrincipal.forEach((principal, usage) -> {
            if (usage.evictIfIdle(now)) {
                byPrincipal.remove(principal, usage);
            }
        });
        return byPrincipal.size();
    }

    int size() {
        return byPrincipal.size();
    }
}
