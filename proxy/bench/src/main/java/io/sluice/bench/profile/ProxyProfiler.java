package io.sluice.bench.profile;

import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;

import io.sluice.bench.ProxyBenchmark;

/**
 * {@code bench proxy --profile}: records each proxy JVM with JFR during the measured rounds and prints, at the end,
 * where their CPU went. A recording that cannot be made (no jcmd, a JVM that refuses) is reported and the benchmark
 * goes on: a profile is an aid to reading the numbers, never a reason to lose them.
 */
public final class ProxyProfiler implements ProxyBenchmark.RoundsListener {

    private static final int TOP = 20;

    private final Map<String, Long> pids;
    private final PrintStream out;
    private final Path dir;
    private final Map<String, JfrRecording> recordings = new LinkedHashMap<>();
    private final Map<String, Path> written = new LinkedHashMap<>();

    /**
     * @param pids by target name, the proxy processes to record
     * @param dir  where the recordings are kept (printed, so that they can be opened in JDK Mission Control)
     */
    public ProxyProfiler(Map<String, Long> pids, Path dir, PrintStream out) {
        this.pids = Map.copyOf(pids);
        this.dir = dir;
        this.out = out;
    }

    /** Starts a recording in every proxy. */
    @Override
    public void measuringStarts() {
        if (pids.isEmpty()) {
            return;
        }
        var jcmd = JfrRecording.jcmd();
        if (jcmd.isEmpty()) {
            out.printf("profile: skipped, no jcmd beside %s (--profile needs a JDK, not a JRE)%n", System.getProperty("java.home"));
            return;
        }
        for (var e : new LinkedHashMap<>(pids).entrySet()) {
            try {
                Files.createDirectories(dir);
                recordings.put(e.getKey(), JfrRecording.start(jcmd.get(), e.getValue(), dir.resolve(e.getKey() + "-" + e.getValue() + ".jfr")));
            } catch (IOException ex) {
                out.printf("profile: no recording of target %s (pid %d): %s%n", e.getKey(), e.getValue(), ex.getMessage());
            } catch (InterruptedException ex) {
                Thread.currentThread().interrupt();
                return;
            }
        }
    }

    /** Stops the recordings. */
    @Override
    public void measuringEnds() {
        for (var e : recordings.entrySet()) {
            try {
                written.put(e.getKey(), e.getValue().stop());
            } catch (IOException ex) {
                out.printf("profile: recording of target %s lost: %s%n", e.getKey(), ex.getMessage());
            } catch (InterruptedException ex) {
                Thread.currentThread().interrupt();
                return;
            }
        }
        recordings.clear();
    }

    /** Prints each recorded target's hottest methods. */
    public void print() {
        for (var e : written.entrySet()) {
            HotMethods.Profile profile;
            try {
                profile = HotMethods.read(e.getValue(), TOP);
            } catch (IOException ex) {
                out.printf("profile: %s unreadable: %s%n", e.getValue(), ex.getMessage());
                continue;
            }
            out.println();
            out.printf("== profile of %s: top %d methods by self samples of %,d (JFR jdk.ExecutionSample, measured rounds only; %s) ==%n",
                    e.getKey(), profile.top().size(), profile.samples(), e.getValue());
            // Execution samples are taken of threads running Java code: time in system calls (the proxy's socket reads and
            // writes, on loopback the receiver's TCP input too) is in the proxy's CPU but not here.
            out.println("(Java code only: CPU in the kernel, socket reads and writes, is not sampled)");
            out.printf("%7s %7s  %s%n", "self %", "total %", "method");
            for (HotMethods.Method m : profile.top()) {
                out.printf("%7.1f %7.1f  %s%n", percent(m.self(), profile.samples()), percent(m.total(), profile.samples()), m.name());
            }
        }
    }

    private static double percent(long part, long whole) {
        return whole == 0 ? 0 : 100.0 * part / whole;
    }
}
