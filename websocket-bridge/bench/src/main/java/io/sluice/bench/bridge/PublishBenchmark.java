package io.sluice.bench.bridge;

import java.io.PrintStream;
import java.time.Duration;

import io.sluice.testkit.CpuSampler;

/**
 * Publishing clients alone against one bridge: connect them, publish through a warm-up and the measured window with a
 * progress line every second (the bridge's CPU read from its own process, as {@link BridgeBenchmark} does), then settle
 * and check what reached Kafka.
 */
final class PublishBenchmark {

    private final PublisherLoad load;
    private final BridgeBenchmark.Target target;
    private final Duration warmup;
    private final Duration duration;
    private final PrintStream out;

    PublishBenchmark(PublisherLoad load, BridgeBenchmark.Target target, Duration warmup, Duration duration, PrintStream out) {
        this.load = load;
        this.target = target;
        this.warmup = warmup;
        this.duration = duration;
        this.out = out;
    }

    PublishResult run() throws Exception {
        load.prepare(target, out);
        long warm = warmup.toSeconds();
        long seconds = warm + duration.toSeconds();
        load.start();
        long start = System.nanoTime();
        long lastCpu = cpuNanos();
        long cpuFrom = lastCpu;
        if (warm == 0) {
            load.measureFrom();
        }
        for (long s = 1; s <= seconds; s++) {
            long tick = start + s * 1_000_000_000L;
            Thread.sleep(Math.max(0, (tick - System.nanoTime()) / 1_000_000));
            long cpu = cpuNanos();
            boolean measuring = s > warm;
            if (s == warm) {
                cpuFrom = cpu;
                load.measureFrom();
            }
            out.printf("[%4ds] %-7s bridge CPU %s%n", s, measuring ? "measure" : "warm-up",
                    target.pid().isEmpty() ? "n/a" : "%.2f cores".formatted((cpu - lastCpu) / 1e9));
            String line = load.second(measuring);
            if (line != null) {
                out.println(line);
            }
            lastCpu = cpu;
        }
        double cpuSeconds = target.pid().isEmpty() ? Double.NaN : (cpuNanos() - cpuFrom) / 1e9;
        long rss = target.pid().isPresent() ? CpuSampler.rssBytes(target.pid().getAsLong()) : -1;
        load.stop();
        PublishResult result = load.result().withBridge(cpuSeconds, rss);
        load.result(result);
        return result;
    }

    private long cpuNanos() {
        return target.pid().isPresent() ? CpuSampler.processCpuNanos(target.pid().getAsLong()) : 0;
    }
}
