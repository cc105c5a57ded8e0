package io.sluice.rate;

/**
 * A rate limit that allows bursts: {@code burst} tokens, refilled at {@code perSecond}; each request takes one. Not
 * thread-safe: used on one event loop (a connection's subscribes), or under its owner's lock (the node's new schema-id
 * lookups), with times from {@link System#nanoTime()}.
 */
public final class TokenBucket {

    private final double perNano;
    private final double capacity;
    private double tokens;
    private long refilledAt;

    public TokenBucket(double perSecond, int burst, long nowNanos) {
        this.perNano = perSecond / 1e9;
        this.capacity = burst;
        this.tokens = burst;
        this.refilledAt = nowNanos;
    }

    /**
     * Takes a token: 0 when one was there, otherwise the whole milliseconds until one will be, rounded up so that a
     * client that waits exactly as long finds it there (nothing is taken).
     */
    public long take(long nowNanos) {
        tokens = Math.min(capacity, tokens + (nowNanos - refilledAt) * perNano);
        refilledAt = nowNanos;
        if (tokens >= 1) {
            tokens -= 1;
            return 0;
        }
        long nanos = (long) Math.ceil((1 - tokens) / perNano);
        return Math.max(1, (nanos + 999_999) / 1_000_000);
    }
}
