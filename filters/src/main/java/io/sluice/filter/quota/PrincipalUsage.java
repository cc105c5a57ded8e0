package io.sluice.filter.quota;

/**
 * What one principal has done through this proxy node lately, shared by all its connections (on every event loop):
 * a {@link WindowedRate} per {@link QuotaKind} and the principal's metric series. Each operation is one short critical
 * section on this object, as Kafka's sensors are; contention is only between connections of the same principal.
 */
final class PrincipalUsage {

    /** Returned by {@link #record} when this usage was evicted: the caller looks the principal up again. */
    static final long EVICTED = -1;

    private final WindowedRate[] rates;
    private final PrincipalSeries series;
    private boolean evicted;

    PrincipalUsage(long windowNanos, int samples, PrincipalSeries series) {
        this.rates = new WindowedRate[QuotaKind.values().length];
        for (int i = 0; i < rates.length; i++) {
            rates[i] = new WindowedRate(windowNanos, samples);
        }
        this.series = series;
    }

    /**
     * Records {@code amount} of {@code kind} now and returns how long the client should pause for that kind's rate to
     * come back to {@code limit} per second (0 within it, or without a limit), or {@link #EVICTED}.
     */
    long record(QuotaKind kind, double amount, Long limit, long now) {
        long throttle;
        synchronized (this) {
            if (evicted) {
                return EVICTED;
            }
            WindowedRate rate = rates[kind.ordinal()];
            rate.record(amount, now);
            throttle = limit == null ? 0 : rate.throttleNanos(limit, now);
        }
        series.recorded(kind, amount);
        return throttle;
    }

    synchronized double rate(QuotaKind kind, long now) {
        return evicted ? 0 : rates[kind.ordinal()].rate(now);
    }

    /** Evicts this usage if nothing it recorded is in the window any more; true if it is (now) evicted. */
    synchronized boolean evictIfIdle(long now) {
        if (!evicted) {
            for (WindowedRate rate : rates) {
                if (!rate.idle(now)) {
                    return false;
                }
            }
            evicted = true;
        }
        return true;
    }

    PrincipalSeries series() {
        return series;
    }
}
