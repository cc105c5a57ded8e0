package io.sluice.filter.quota;

/**
 * A rate over a sliding window made of {@code samples} windows of {@code windowNanos} each, and the throttle that brings
 * it back to a limit, as a Kafka broker measures a client's quota (KIP-13): in go amounts recorded at instants, out the
 * rate per second and how long the client must pause. Not thread-safe: {@link PrincipalUsage} guards it.
 *
 * <p>Samples are aligned on multiples of the window (sample {@code k} covers {@code [k·w, (k+1)·w)}), so the ring is
 * indexed by the clock alone. The rate is the sum of the live samples over the span they cover: the {@code samples - 1}
 * whole windows before the current one plus what has passed of the current one, but never more than one window plus
 * the time since the first amount was recorded after the rate was last idle. That last bound is where this differs from Kafka's
 * {@code Rate}, which measures a new client over at least {@code samples - 1} windows and so lets it start with a burst
 * of that many windows' allowance, then starve it until the burst's sample expires, then allow the next burst.</p>
 *
 * <p>The throttle: with {@code S} bytes in the span {@code W} the rate is {@code S/W}. If the client sends nothing more,
 * after {@code T} the rate is {@code S/(W+T)}; it equals the limit {@code L} when {@code T = S/L - W}, which is
 * {@code (rate - L) / L · W}, the pause Kafka asks for. It is capped at the whole window ({@code samples · w}): after
 * that every amount recorded now has left the window, so waiting longer would punish the client for what no longer
 * counts.</p>
 */
final class WindowedRate {

    private static final long NANOS_PER_SECOND = 1_000_000_000L;

    private final long windowNanos;
    private final int samples;
    /** The window index each slot holds, or {@link Long#MIN_VALUE} for an empty slot. */
    private final long[] windows;
    private final double[] amounts;
    private long firstRecorded = Long.MIN_VALUE;

    WindowedRate(long windowNanos, int samples) {
        if (windowNanos <= 0 || samples < 2) {
            throw new IllegalArgumentException("a window of at least one nanosecond and at least two samples");
        }
        this.windowNanos = windowNanos;
        this.samples = samples;
        this.windows = new long[samples];
        this.amounts = new double[samples];
        java.util.Arrays.fill(windows, Long.MIN_VALUE);
    }

    void record(double amount, long now) {
        if (firstRecorded == Long.MIN_VALUE || idle(now)) {
            // Back after a pause longer than the window: measured afresh, as a new client would be.
            firstRecorded = now;
        }
        long window = Math.floorDiv(now, windowNanos);
        int slot = (int) Math.floorMod(window, (long) samples);
        if (windows[slot] != window) {
            windows[slot] = window;
            amounts[slot] = 0;
        }
        amounts[slot] += amount;
    }

    /** Per second, over the span the live samples cover. */
    double rate(long now) {
        return total(now) * NANOS_PER_SECOND / span(now);
    }

    /** How long the client should pause for the rate to come back down to {@code limit} per second; 0 when within it. */
    long throttleNanos(double limit, long now) {
        double total = total(now);
        long span = span(now);
        double excess = total / limit * NANOS_PER_SECOND - span;
        if (excess <= 0) {
            return 0;
        }
        return (long) Math.min(excess, (double) samples * windowNanos);
    }

    /** Whether nothing recorded is still in the window, so the rate is zero and will stay so. */
    boolean idle(long now) {
        long current = Math.floorDiv(now, windowNanos);
        for (long window : windows) {
            if (window != Long.MIN_VALUE && window > current - samples) {
                return false;
            }
        }
        return true;
    }

    private double total(long now) {
        long current = Math.floorDiv(now, windowNanos);
        double total = 0;
        for (int i = 0; i < samples; i++) {
            if (windows[i] != Long.MIN_VALUE && windows[i] > current - samples && windows[i] <= current) {
                total += amounts[i];
            }
        }
        return total;
    }

    /** The nanoseconds the rate is measured over: the full span at most, and no more than one window beyond what has passed since the first amount. */
    private long span(long now) {
        long current = Math.floorDiv(now, windowNanos);
        long full = (samples - 1) * windowNanos + (now - current * windowNanos);
        long sinceFirst = firstRecorded == Long.MIN_VALUE ? 0 : now - firstRecorded;
        // As if the first amount had come one window earlier: the throttle that brings the rate back to the limit is
        // then the same at the start as later (the span grows with the time waited).
        return Math.min(full, sinceFirst + windowNanos);
    }
}
