package io.sluice.bench.bridge;

import java.io.PrintStream;
import java.util.ArrayList;
import java.util.List;

import io.sluice.testkit.CpuSampler;

/**
 * Beside a fan-out, no load: the bridge's CPU in each second of the measured window, in cores. One run is one sizing
 * point; the spread of its seconds is the only error it can say anything about (measurement noise, not whether cost
 * stays linear at another scale).
 */
public final class BridgeCpuSeconds implements BesideTraffic {

    private final List<Double> cores = new ArrayList<>();
    private long pid = -1;
    private long last;
    private long lastNanos;

    @Override
    public void prepare(BridgeBenchmark.Target target, PrintStream out) {
        pid = target.pid().orElse(-1);
    }

    @Override
    public void measureFrom() {
        if (pid >= 0) {
            last = CpuSampler.processCpuNanos(pid);
            lastNanos = System.nanoTime();
        }
    }

    @Override
    public String second(boolean measuring) {
        if (measuring && pid >= 0) {
            long cpu = CpuSampler.processCpuNanos(pid);
            long now = System.nanoTime();
            cores.add((cpu - last) / (double) (now - lastNanos));
            last = cpu;
            lastNanos = now;
        }
        return null;
    }

    /** The bridge's cores in each measured second; empty without the bridge's process. */
    public List<Double> cores() {
        return List.copyOf(cores);
    }
}
