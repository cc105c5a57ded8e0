package io.sluice.kms.cache;

import java.util.function.DoubleSupplier;

/** Delays between attempts: exponential, capped, each drawn from the upper half of its bound. */
final class Backoff {

    private final long initialNanos;
    private final long maxNanos;
    private final DoubleSupplier random;

    /** @param random values in [0, 1) */
    Backoff(RetryPolicy policy, DoubleSupplier random) {
        this.initialNanos = policy.initialBackoff().toNanos();
        this.maxNanos = policy.maxBackoff().toNanos();
        this.random = random;
    }

    /** The bound for the delay after the {@code failures}-th failed attempt (1 for the first). */
    long boundNanos(int failures) {
        int doublings = Math.max(0, failures - 1);
        // Past 62 doublings the shift overflows; the cap was reached long before.
        if (doublings >= 62 || initialNanos > (maxNanos >> doublings)) {
            return maxNanos;
        }
        return Math.min(maxNanos, initialNanos << doublings);
    }

    /** A delay in [bound/2, bound]. Half the bound is fixed so that a retry never comes right on the heels of a failure. */
    long delayNanos(int failures) {
        long bound = boundNanos(failures);
        long half = bound / 2;
        return half + (long) (random.getAsDouble() * (bound - half));
    }
}
