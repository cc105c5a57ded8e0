package io.sluice.filter.quota;

import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;
import java.util.function.LongSupplier;

import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tags;

/**
 * The quota metrics of one filter definition, labelled {@code filter} and {@code principal}, with a bounded number of
 * principal values: the first {@code maxPrincipals} principals seen get series of their own, every later one (and any
 * name longer than {@link #MAX_LABEL_CHARS}) counts in {@code principal="other"}. Principal names come from tokens, so
 * without the cap a stream of new subjects would grow the scrape without end.
 *
 * <pre>
 * sluice_quota_throttle_seconds_total{filter,principal,kind}   time clients were throttled for
 * sluice_quota_throttled_total{filter,principal,kind}          responses that throttled their client
 * sluice_quota_bytes_total{filter,principal,kind}              record bytes produced / fetched (fetch: principals with a fetch limit)
 * sluice_quota_requests_total{filter,principal}                requests counted
 * sluice_quota_rate{filter,principal,kind}                     current windowed rate (own principals only)
 * sluice_quota_limit{filter,principal,kind}                    the configured limit this node enforces (own principals, limited kinds)
 * sluice_quota_principals{filter}                              principals tracked now (traffic within the window)
 * </pre>
 */
final class QuotaMetrics {

    static final String OTHER = "other";
    static final int MAX_LABEL_CHARS = 128;

    private final MeterRegistry registry;
    private final String filter;
    private final int maxPrincipals;
    private final LongSupplier clock;
    private final QuotaRules rules;
    private final ConcurrentMap<String, PrincipalSeries> own = new ConcurrentHashMap<>();
    private volatile PrincipalSeries other;

    QuotaMetrics(MeterRegistry registry, String filter, int maxPrincipals, QuotaRules rules, LongSupplier clock) {
        this.registry = registry;
        this.filter = filter;
        this.maxPrincipals = maxPrincipals;
        this.rules = rules;
        this.clock = clock;
    }

    /** Registers the gauge of how many principals {@code usages} tracks. */
    void trackedPrincipals(QuotaUsages usages) {
        Gauge.builder("sluice.quota.principals", usages, QuotaUsages::size)
                .description("Principals the quotas track now: those with traffic within the window")
                .tag("filter", filter).register(registry);
    }

    /** The series {@code principal} counts in: its own while there is room, else {@code other}. */
    PrincipalSeries series(String principal) {
        PrincipalSeries series = own.get(principal);
        if (series != null) {
            return series;
        }
        if (principal.length() <= MAX_LABEL_CHARS && !OTHER.equals(principal)) {
            synchronized (this) {
                series = own.get(principal);
                if (series == null && own.size() < maxPrincipals) {
                    series = new PrincipalSeries(registry, tags(principal), true, clock);
                    registerLimits(principal);
                    own.put(principal, series);
                }
            }
            if (series != null) {
                return series;
            }
        }
        return other();
    }

    private PrincipalSeries other() {
        PrincipalSeries series = other;
        if (series == null) {
            synchronized (this) {
                if (other == null) {
                    other = new PrincipalSeries(registry, tags(OTHER), false, clock);
                }
                series = other;
            }
        }
        return series;
    }

    private void registerLimits(String principal) {
        for (QuotaKind kind : QuotaKind.values()) {
            Long limit = rules.nodeLimit(principal, kind);
            if (limit != null) {
                Gauge.builder("sluice.quota.limit", limit, Long::doubleValue)
                        .description("The configured limit this proxy node enforces: bytes per second (produce, fetch) or requests per second;"
                                + " a token may lower it for its own connections")
                        .tags(tags(principal).and("kind", kind.label())).strongReference(true).register(registry);
            }
        }
    }

    private Tags tags(String principal) {
        return Tags.of("filter", filter, "principal", principal);
    }
}
