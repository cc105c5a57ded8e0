package io.sluice.filter.quota;

import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;

import io.sluice.proxy.filter.Filter;
import io.sluice.proxy.filter.FilterFactory;
import io.sluice.proxy.filter.FilterFactoryContext;

/**
 * Quotas: produce bytes, fetch bytes and requests per second per principal, enforced as a Kafka broker enforces its
 * client quotas: the response carries {@code throttle_time_ms} and the connection is muted for that time, so clients
 * back off by themselves and nothing is refused or dropped (docs/quotas.md). Put it right after the authenticating
 * filter (JwtAuth), so that it knows the principal and counts what the client sent and receives.
 *
 * <pre>
 * filterDefinitions:
 *   - name: quotas
 *     type: Quotas
 *     config:
 *       defaults:
 *         produceBytesPerSecond: 1048576
 *         fetchBytesPerSecond: 2097152
 *         requestsPerSecond: 500
 *       overrides:
 *         "batch-*":
 *           produceBytesPerSecond: 10485760
 * </pre>
 *
 * A filter of its own rather than part of JwtAuth: it needs only the principal, which any authenticating filter sets,
 * so it also limits a chain without JwtAuth (every connection then counts as {@link #UNAUTHENTICATED}), and a chain
 * with JwtAuth but no quotas pays nothing for them. A token's {@code quotas} claim member, which JwtAuth publishes in
 * the principal's permissions, lowers the configured limits for that token's connections.
 */
public final class Quotas implements FilterFactory<QuotasConfig, Quotas.Shared> {

    /** The principal of connections no filter authenticated, as Kafka names it: they share one set of rates. */
    public static final String UNAUTHENTICATED = "ANONYMOUS";

    /** What every connection of one filter definition shares. */
    record Shared(QuotaRules rules, QuotaUsages usages, LongSupplier clock, long windowNanos, int samples, ScheduledFuture<?> sweeper) {

        /** The bytes {@code limit} per second allows over the window a rate is measured over: a cap for one fetch. */
        long windowAllowance(long limit) {
            double bytes = (double) limit * (samples - 1) * windowNanos / 1e9;
            return (long) Math.max(1, Math.min(Integer.MAX_VALUE, bytes));
        }
    }

    private final LongSupplier clock;

    public Quotas() {
        this(System::nanoTime);
    }

    /** With the clock the rates are measured by (tests move it by hand). */
    Quotas(LongSupplier nanoClock) {
        this.clock = nanoClock;
    }

    @Override
    public Class<QuotasConfig> configType() {
        return QuotasConfig.class;
    }

    @Override
    public Shared initialize(FilterFactoryContext context, QuotasConfig config) {
        QuotaRules rules = new QuotaRules(config.defaults(), config.validated(), config.shares());
        long windowNanos = config.window().toNanos();
        QuotaMetrics metrics = new QuotaMetrics(context.meterRegistry(), context.filterName(), config.maxPrincipalsInMetrics(), rules, clock);
        QuotaUsages usages = new QuotaUsages(windowNanos, config.samples(), metrics);
        metrics.trackedPrincipals(usages);
        // Once per whole window: a principal is dropped at most one window after its last traffic left the window.
        long sweepNanos = windowNanos * config.samples();
        ScheduledFuture<?> sweeper = context.eventLoop().scheduleWithFixedDelay(() -> usages.sweep(clock.getAsLong()), sweepNanos, sweepNanos,
                TimeUnit.NANOSECONDS);
        return new Shared(rules, usages, clock, windowNanos, config.samples(), sweeper);
    }

    @Override
    public Filter createFilter(FilterFactoryContext context, Shared shared) {
        return new QuotaFilter(shared);
    }

    @Override
    public void close(Shared shared) {
        shared.sweeper().cancel(false);
    }
}
