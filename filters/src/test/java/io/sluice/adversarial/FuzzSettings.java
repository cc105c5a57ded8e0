package io.sluice.adversarial;

import java.time.Duration;

/**
 * The fuzz run's knobs, from system properties ({@code mvn ... -Dsluice.fuzz.seed=...}; Surefire hands Maven's
 * {@code -D} properties to the test JVM). Defaults are the CI run: a fresh seed, a few thousand mutations.
 *
 * @param seed        the run's seed; every mutation is derived from it and its index alone
 * @param mutations   how many mutations to send (ignored when {@code duration} is set)
 * @param duration    run for this long instead ({@code sluice.fuzz.minutes}); null for a counted run
 * @param only        replay just this mutation index (a reproducer), or -1
 * @param timeoutMs   how long to wait for an answer to a request the broker may hold (Fetch, JoinGroup, ...)
 * @param graceMs     how much longer to wait for any other answer or close before calling it missing
 * @param heapBoundMiB how much the heap after GC may grow over the run
 * @param checkEvery  health check (round trip, new connection, threads, heap) every this many mutations
 */
record FuzzSettings(long seed, int mutations, Duration duration, long only, int timeoutMs, int graceMs, int heapBoundMiB, int checkEvery) {

    static FuzzSettings fromSystemProperties() {
        String seed = System.getProperty("sluice.fuzz.seed");
        String minutes = System.getProperty("sluice.fuzz.minutes");
        return new FuzzSettings(
                seed != null && !seed.isBlank() ? Long.parseLong(seed.trim()) : new java.security.SecureRandom().nextLong(),
                Integer.getInteger("sluice.fuzz.mutations", 3000),
                minutes != null && !minutes.isBlank() ? Duration.ofSeconds(Math.round(Double.parseDouble(minutes) * 60)) : null,
                Long.getLong("sluice.fuzz.only", -1),
                Integer.getInteger("sluice.fuzz.timeoutMs", 5000),
                Integer.getInteger("sluice.fuzz.graceMs", 60000),
                Integer.getInteger("sluice.fuzz.heapMiB", 128),
                Integer.getInteger("sluice.fuzz.checkEvery", 250));
    }

    /** The random source of mutation {@code index}: the same for the same seed and index in every run. */
    java.util.Random randomFor(long index) {
        long z = seed + 0x9E3779B97F4A7C15L * (index + 1);
        z = (z ^ (z >>> 30)) * 0xBF58476D1CE4E5B9L;
        z = (z ^ (z >>> 27)) * 0x94D049BB133111EBL;
        return new java.util.Random(z ^ (z >>> 31));
    }
}
