package io.sluice.filter.quota;

import java.util.EnumMap;
import java.util.Map;
import java.util.function.LongSupplier;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tags;

/**
 * The metric series of one {@code principal} label value (a principal's own, or {@code other} for those beyond the
 * cap): throttle time and throttled responses by kind, bytes produced and fetched, requests, and for a principal of its
 * own the current rate of each kind. Counters are registered once here, so the request path only increments them.
 */
final class PrincipalSeries {

    private final Map<QuotaKind, Counter> throttleSeconds = new EnumMap<>(QuotaKind.class);
    private final Map<QuotaKind, Counter> throttled = new EnumMap<>(QuotaKind.class);
    private final Map<QuotaKind, Counter> recorded = new EnumMap<>(QuotaKind.class);
    /** The usage the rate gauges read; replaced when the principal is tracked again after an eviction. */
    private volatile PrincipalUsage usage;

    /**
     * @param rates whether to register the rate gauges (not for {@code other}, whose rate is no one principal's)
     */
    PrincipalSeries(MeterRegistry registry, Tags tags, boolean rates, LongSupplier clock) {
        for (QuotaKind kind : QuotaKind.values()) {
            Tags kindTags = tags.and("kind", kind.label());
            throttleSeconds.put(kind, Counter.builder("sluice.quota.throttle.seconds")
                    .description("Time clients were throttled for (throttle_time_ms and the connection muted), by the kind of quota that asked for most")
                    .baseUnit("seconds").tags(kindTags).register(registry));
            throttled.put(kind, Counter.builder("sluice.quota.throttled")
                    .description("Responses that throttled their client, by the kind of quota that asked for most")
                    .tags(kindTags).register(registry));
            if (rates) {
                Gauge.builder("sluice.quota.rate", this, s -> s.rate(kind, clock.getAsLong()))
                        .description("The principal's current rate over the quota window: bytes per second (produce, fetch) or requests per second")
                        .tags(kindTags).register(registry);
            }
        }
        recorded.put(QuotaKind.PRODUCE, Counter.builder("sluice.quota.bytes").description("Bytes of records measured against the quotas, by kind")
                .baseUnit("bytes").tags(tags.and("kind", QuotaKind.PRODUCE.label())).register(registry));
        recorded.put(QuotaKind.FETCH, Counter.builder("sluice.quota.bytes").description("Bytes of records measured against the quotas, by kind")
                .baseUnit("bytes").tags(tags.and("kind", QuotaKind.FETCH.label())).register(registry));
        recorded.put(QuotaKind.REQUEST, Counter.builder("sluice.quota.requests").description("Requests measured against the quotas")
                .tags(tags).register(registry));
    }

    void attach(PrincipalUsage usage) {
        this.usage = usage;
    }

    void recorded(QuotaKind kind, double amount) {
        recorded.get(kind).increment(amount);
    }

    void throttled(QuotaKind kind, long nanos) {
        throttleSeconds.get(kind).increment(nanos / 1e9);
        throttled.get(kind).increment();
    }

    private double rate(QuotaKind kind, long now) {
        PrincipalUsage current = usage;
        return current == null ? 0 : current.rate(kind, now);
    }
}
