package io.sluice.bench.bridge;

import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;

import io.sluice.cli.UsageException;

/**
 * {@code --pin}: the bridge on the machine's last CPU, Kafka and the load generator (this process) on the others, with
 * {@code taskset}. On a shared box the bench's subscribers and Kafka otherwise take the bridge's core at random moments,
 * and latency measures the machine's run queue rather than the bridge. Pinning every thread of a running process
 * ({@code taskset -a}) also binds the threads it starts later, which inherit the affinity of their creator.
 */
final class CpuPinning {

    private final String bridgeCpus;
    private final String otherCpus;

    private CpuPinning(String bridgeCpus, String otherCpus) {
        this.bridgeCpus = bridgeCpus;
        this.otherCpus = otherCpus;
    }

    /** The split for this machine; refuses when there is nothing to split. */
    static CpuPinning forThisMachine() {
        int cpus = Runtime.getRuntime().availableProcessors();
        if (cpus < 2) {
            throw new UsageException("--pin needs at least 2 CPUs (this process may use " + cpus + ")");
        }
        return new CpuPinning(Integer.toString(cpus - 1), cpus == 2 ? "0" : "0-" + (cpus - 2));
    }

    void pinBridge(long pid, PrintStream out) {
        pin(pid, bridgeCpus, "bridge", out);
    }

    void pinOther(long pid, String what, PrintStream out) {
        pin(pid, otherCpus, what, out);
    }

    private static void pin(long pid, String cpus, String what, PrintStream out) {
        try {
            Process taskset = new ProcessBuilder("taskset", "-a", "-c", "-p", cpus, Long.toString(pid)).redirectErrorStream(true).start();
            String said = new String(taskset.getInputStream().readAllBytes(), StandardCharsets.UTF_8).trim();
            if (taskset.waitFor() != 0) {
                throw new IllegalStateException("taskset could not pin the " + what + " (pid " + pid + ") to CPU " + cpus + ": " + said);
            }
            out.printf("pinned the %s (pid %d, every thread) to CPU %s%n", what, pid, cpus);
        } catch (IOException e) {
            throw new IllegalStateException("--pin needs taskset (util-linux) on the PATH: " + e.getMessage(), e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while pinning the " + what, e);
        }
    }
}
