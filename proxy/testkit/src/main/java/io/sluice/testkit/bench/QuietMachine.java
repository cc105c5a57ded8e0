package io.sluice.testkit.bench;

import java.io.PrintStream;
import java.time.Duration;
import java.util.function.DoubleSupplier;

/**
 * Waits for the machine to be quiet before a measurement: the brief's rule is that a run which started with the
 * one-minute load average at or above 1.0 is not a result, because the 2 cores are shared with builds and helpers.
 */
public final class QuietMachine {

    private final DoubleSupplier oneMinuteLoad;
    private final Sleeper sleeper;

    public interface Sleeper {
        void sleep(Duration duration) throws InterruptedException;
    }

    public QuietMachine(DoubleSupplier oneMinuteLoad, Sleeper sleeper) {
        this.oneMinuteLoad = oneMinuteLoad;
        this.sleeper = sleeper;
    }

    public static QuietMachine system() {
        return new QuietMachine(QuietMachine::readLoad, duration -> Thread.sleep(duration.toMillis()));
    }

    /**
     * Waits up to {@code maxWait}, checking every 10 s, for the load to drop below {@code below}.
     *
     * @return the load when the wait ended: below the threshold when the machine became quiet, above it when the wait ran out
     */
    public double await(double below, Duration maxWait, PrintStream out) throws InterruptedException {
        Duration step = Duration.ofSeconds(10);
        Duration waited = Duration.ZERO;
        double load = oneMinuteLoad.getAsDouble();
        while (load >= below && waited.compareTo(maxWait) < 0) {
            out.printf("waiting for a quiet machine: 1-minute load %.2f, need < %.2f (%d of %d s)%n", load, below, waited.toSeconds(), maxWait.toSeconds());
            sleeper.sleep(step);
            waited = waited.plus(step);
            load = oneMinuteLoad.getAsDouble();
        }
        return load;
    }

    public static double readLoad() {
        try {
            String[] fields = java.nio.file.Files.readString(java.nio.file.Path.of("/proc/loadavg")).trim().split("\\s+");
            return Double.parseDouble(fields[0]);
        } catch (java.io.IOException | RuntimeException e) {
            // Not Linux: nothing to wait for, and the record says "n/a".
            return 0;
        }
    }
}
