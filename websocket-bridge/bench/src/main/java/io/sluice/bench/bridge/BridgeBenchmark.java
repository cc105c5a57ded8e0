package io.sluice.bench.bridge;

import java.io.PrintStream;
import java.net.URI;
import java.util.OptionalLong;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

import org.HdrHistogram.Histogram;

import io.sluice.testkit.CpuSampler;
import io.sluice.testkit.RunEnvironment;

/**
 * One run against one bridge: memory before, connections (with progress), memory with them open, then traffic
 * (warm-up, then the measured window) with a progress line every second, then the figures. The bridge's CPU and
 * memory are read from its own process, so the load generator's share of the machine is never counted.
 */
final class BridgeBenchmark {

    /**
     * The bridge under test.
     *
     * @param local its child process when the bench started it (heap after GC is measured), else null
     * @param pid   its process, when known (CPU and RSS are measured)
     */
    record Target(String bootstrap, String topic, URI url, String token, LocalBridge local, OptionalLong pid) {

        /** The same bridge reached at another address (its MQTT listener). */
        Target at(URI other) {
            return new Target(bootstrap, topic, other, token, local, pid);
        }

        /** Where clients of {@code transport} connect: the bench's own bridge has both listeners. */
        URI urlFor(BenchTransport transport) {
            boolean mqtt = "mqtt".equals(url.getScheme());
            if ((transport == BenchTransport.MQTT) == mqtt) {
                return url;
            }
            if (local == null) {
                throw new IllegalStateException("clients over " + transport.label() + " need the bench's own bridge or a " + transport.label() + " address");
            }
            return URI.create(transport == BenchTransport.MQTT ? local.mqttUrl() : local.url());
        }
    }

    private static final long SETTLE_MILLIS = 3_000;

    private final BenchSettings settings;
    private final Target target;
    private final PrintStream out;
    private final BesideTraffic beside;

    BridgeBenchmark(BenchSettings settings, Target target, PrintStream out) {
        this(settings, target, out, BesideTraffic.NONE);
    }

    BridgeBenchmark(BenchSettings settings, Target target, PrintStream out, BesideTraffic beside) {
        this.settings = settings;
        this.target = target;
        this.out = out;
        this.beside = beside;
    }

    BenchResult run() throws Exception {
        String loadStart = RunEnvironment.loadAverages();
        long rssBefore = rss();
        long heapBefore = heapAfterGc();
        out.printf("bridge before connections: %s%n", memory(rssBefore, heapBefore));
        try (BenchSubscribers subscribers = new BenchSubscribers(target.url(), target.token(), target.topic(), settings)) {
            long connectStart = System.nanoTime();
            ScheduledExecutorService ticker = Executors.newSingleThreadScheduledExecutor(r -> {
                Thread t = new Thread(r, "bench-progress");
                t.setDaemon(true);
                return t;
            });
            try {
                ticker.scheduleAtFixedRate(() -> out.printf("[%4ds] connecting: %,d attempted, %,d open, %,d subscribed, %,d failed%n",
                        seconds(connectStart), subscribers.attempted(), subscribers.open(), subscribers.subscribed(), subscribers.failed()),
                        1, 1, TimeUnit.SECONDS);
                subscribers.connect(settings.connections(), settings.endpoints(), settings.connectRate(), settings.perAddress(), settings.seed());
            } finally {
                ticker.shutdownNow();
            }
            out.printf("[%4ds] connected: %,d subscribed, %,d failed%s%n", seconds(connectStart), subscribers.subscribed(), subscribers.failed(),
                    subscribers.firstProblem() == null ? "" : "; first problem: " + subscribers.firstProblem());
            Thread.sleep(SETTLE_MILLIS);
            long rssWith = rss();
            long heapWith = heapAfterGc();
            int held = subscribers.subscribed();
            out.printf("bridge with %,d connections: %s; per connection: %s%n", held, memory(rssWith, heapWith),
                    perConnection(rssBefore, rssWith, heapBefore, heapWith, held));
            if (settings.idle() && beside != BesideTraffic.NONE) {
                throw new IllegalArgumentException("a load beside the fan-out needs the fan-out's traffic (rate above 0)");
            }
            beside.prepare(target, out);
            Traffic traffic = settings.idle() ? hold(subscribers) : traffic(subscribers);
            long rssEnd = rss();
            return new BenchResult(settings.transport().label(), settings.connections(), subscribers.subscribed(), subscribers.failed(), subscribers.serverCloses(),
                    settings.endpoints(), settings.rate(), traffic.valueBytes, settings.valueDescription(), traffic.seconds,
                    traffic.produced, traffic.delivered, traffic.deltas, subscribers.unstamped(), settings.expectedOutRate(held),
                    traffic.delivered / traffic.seconds, traffic.bytes / traffic.seconds / 1e6,
                    traffic.delivered == 0 ? Double.NaN : (double) traffic.bytes / traffic.delivered,
                    ms(traffic.latency.getMean()), ms(traffic.latency.getStdDeviation()), ms(traffic.latency.getValueAtPercentile(50)),
                    ms(traffic.latency.getValueAtPercentile(99)), ms(traffic.latency.getMaxValue()),
                    traffic.cpuSeconds, traffic.cpuSeconds / traffic.seconds,
                    traffic.delivered == 0 ? Double.NaN : traffic.cpuSeconds / (traffic.delivered / 1e6),
                    traffic.delivered == 0 ? Double.NaN : traffic.kernelCpuSeconds / (traffic.delivered / 1e6),
                    rssBefore, rssWith, rssEnd, heapBefore, heapWith,
                    perConnectionBytes(rssBefore, rssWith, held), perConnectionBytes(heapBefore, heapWith, held),
                    traffic.publisherLagMs, loadStart, RunEnvironment.loadAverages(), subscribers.firstProblem());
        }
    }

    private record Traffic(double seconds, long produced, long delivered, long deltas, long bytes, int valueBytes, Histogram latency,
                           double cpuSeconds, double kernelCpuSeconds, double publisherLagMs) {
    }

    /** Idle mode: the connections stay open without traffic for the duration; only the bridge's CPU is of interest. */
    private Traffic hold(BenchSubscribers subscribers) throws InterruptedException {
        long cpu0 = cpuNanos();
        long kernel0 = kernelNanos();
        long messages0 = subscribers.messages();
        long bytes0 = subscribers.bytes();
        long t0 = System.nanoTime();
        for (int s = 1; s <= settings.duration().toSeconds(); s++) {
            Thread.sleep(1_000);
            out.printf("[%4ds] idle: %,d subscribed, %,d open%n", s, subscribers.subscribed(), subscribers.open());
        }
        double seconds = (System.nanoTime() - t0) / 1e9;
        return new Traffic(seconds, 0, subscribers.messages() - messages0, 0, subscribers.bytes() - bytes0, settings.payloadBytes(), new Histogram(3),
                target.pid().isEmpty() ? Double.NaN : (cpuNanos() - cpu0) / 1e9,
                target.pid().isEmpty() ? Double.NaN : (kernelNanos() - kernel0) / 1e9, 0);
    }

    private Traffic traffic(BenchSubscribers subscribers) throws Exception {
        Histogram total = new Histogram(3);
        Histogram interval = null;
        long warmup = settings.warmup().toSeconds();
        long seconds = warmup + settings.duration().toSeconds();
        try (BenchPublisher publisher = new BenchPublisher(target.bootstrap(), target.topic(), settings.endpoints(), settings.rate(),
                BenchPublisher.values(settings)).start()) {
            beside.start();
            long start = System.nanoTime();
            long lastMessages = subscribers.messages();
            long lastBytes = subscribers.bytes();
            long lastCpu = cpuNanos();
            // Without a warm-up the window starts now.
            long measuredFrom = start;
            long messagesFrom = lastMessages;
            long bytesFrom = lastBytes;
            long deltasFrom = subscribers.deltas();
            long cpuFrom = lastCpu;
            long kernelFrom = kernelNanos();
            long producedFrom = 0;
            subscribers.latency().reset();
            if (warmup == 0) {
                beside.measureFrom();
            }
            for (long s = 1; s <= seconds; s++) {
                long tick = start + s * 1_000_000_000L;
                Thread.sleep(Math.max(0, (tick - System.nanoTime()) / 1_000_000));
                interval = subscribers.latency().getIntervalHistogram(interval);
                long messages = subscribers.messages();
                long bytes = subscribers.bytes();
                long cpu = cpuNanos();
                boolean measuring = s > warmup;
                if (s == warmup) {
                    measuredFrom = System.nanoTime();
                    messagesFrom = messages;
                    bytesFrom = bytes;
                    deltasFrom = subscribers.deltas();
                    cpuFrom = cpu;
                    kernelFrom = kernelNanos();
                    producedFrom = publisher.sent();
                    beside.measureFrom();
                }
                if (measuring) {
                    total.add(interval);
                }
                out.printf("[%4ds] %-7s %,7d subscribed  out %,9d msgs/s %7.2f MB/s  latency mean %7.2f ms p99 %8.2f ms max %8.2f ms  bridge CPU %s%n",
                        s, measuring ? "measure" : "warm-up", subscribers.subscribed(), messages - lastMessages, (bytes - lastBytes) / 1e6,
                        ms(interval.getMean()), ms(interval.getValueAtPercentile(99)), ms(interval.getMaxValue()),
                        target.pid().isEmpty() ? "n/a" : "%.2f cores".formatted((cpu - lastCpu) / 1e9));
                String besideLine = beside.second(measuring);
                if (besideLine != null) {
                    out.println(besideLine);
                }
                lastMessages = messages;
                lastBytes = bytes;
                lastCpu = cpu;
            }
            double measured = (System.nanoTime() - measuredFrom) / 1e9;
            long produced = publisher.sent() - producedFrom;
            long delivered = subscribers.messages() - messagesFrom;
            long bytes = subscribers.bytes() - bytesFrom;
            double cpuSeconds = target.pid().isEmpty() ? Double.NaN : (cpuNanos() - cpuFrom) / 1e9;
            double kernelSeconds = target.pid().isEmpty() ? Double.NaN : (kernelNanos() - kernelFrom) / 1e9;
            beside.stop();
            if (publisher.failed() > 0) {
                out.printf("publisher: %,d sends failed%n", publisher.failed());
            }
            return new Traffic(measured, produced, delivered, subscribers.deltas() - deltasFrom, bytes, (int) Math.round(publisher.meanValueBytes()),
                    total, cpuSeconds, kernelSeconds, publisher.maxLagMillis());
        }
    }

    private long kernelNanos() {
        return target.pid().isPresent() ? CpuSampler.processSystemCpuNanos(target.pid().getAsLong()) : 0;
    }

    private long cpuNanos() {
        return target.pid().isPresent() ? CpuSampler.processCpuNanos(target.pid().getAsLong()) : 0;
    }

    private long rss() {
        return target.pid().isPresent() ? CpuSampler.rssBytes(target.pid().getAsLong()) : -1;
    }

    private long heapAfterGc() throws InterruptedException {
        return target.local() == null ? -1 : target.local().heapUsedAfterGc();
    }

    private static String memory(long rss, long heap) {
        return "RSS " + mib(rss) + ", heap used after full GC " + mib(heap);
    }

    private static String perConnection(long rssBefore, long rssWith, long heapBefore, long heapWith, int connections) {
        return "RSS " + kb(perConnectionBytes(rssBefore, rssWith, connections))
                + ", heap after GC " + kb(perConnectionBytes(heapBefore, heapWith, connections));
    }

    static double perConnectionBytes(long before, long after, int connections) {
        return before < 0 || after < 0 || connections == 0 ? -1 : (double) (after - before) / connections;
    }

    private static String mib(long bytes) {
        return bytes < 0 ? "n/a" : "%.1f MiB".formatted(bytes / 1048576.0);
    }

    static String kb(double bytes) {
        return bytes < 0 ? "n/a" : "%.2f KB".formatted(bytes / 1000.0);
    }

    private static double ms(double micros) {
        return micros / 1000.0;
    }

    private static long seconds(long since) {
        return (System.nanoTime() - since) / 1_000_000_000L;
    }

}
