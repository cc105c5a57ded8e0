package io.sluice.bench.bridge;

import java.util.Random;

import io.sluice.cli.UsageException;

/**
 * When a client that lost its connection tries again, as a real client library does: the first retry at a random
 * moment within {@code firstMillis} (so that the clients of a dead node do not all come back in the same instant),
 * then exponentially: retry n (n >= 2) waits between {@code firstMillis * 2^(n-2)} and twice that, at most
 * {@code maxMillis}. Without the jitter a node's clients would reconnect as one burst and the storm would measure the
 * front's accept queue rather than the nodes.
 *
 * @param firstMillis the first retry's window; 0 retries at once
 * @param maxMillis   no wait is longer
 */
public record ReconnectBackoff(long firstMillis, long maxMillis) {

    public ReconnectBackoff {
        if (firstMillis < 0 || maxMillis < Math.max(1, firstMillis)) {
            throw new UsageException("the reconnect backoff needs 0 <= first <= max and max >= 1 ms, not first " + firstMillis + " ms, max " + maxMillis + " ms");
        }
    }

    /** The wait before attempt {@code attempt} (1: the first retry), in ms. */
    long delayMillis(int attempt, Random random) {
        if (attempt <= 1) {
            return firstMillis == 0 ? 0 : (long) (random.nextDouble() * firstMillis);
        }
        // At least 1 ms so that a client whose first window is 0 still backs off after a failed retry.
        long floor = Math.max(1, firstMillis) << Math.min(30, attempt - 2);
        long delay = floor + (long) (random.nextDouble() * floor);
        return Math.min(maxMillis, delay);
    }
}
