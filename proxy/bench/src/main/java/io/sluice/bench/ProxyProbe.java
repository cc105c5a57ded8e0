package io.sluice.bench;

import java.time.Duration;
import java.util.List;

import io.sluice.results.RunRecord;
import io.sluice.testkit.CpuSampler;

/**
 * Watches a proxy process through one benchmark run: its CPU and memory every second (through {@link CpuSampler},
 * from the proxy's own cgroup where it has one, else /proc), its GC and the requests it answered over the measured
 * window (from /metrics).
 * Start it before warm-up, mark the window when measuring begins, finish it when measuring ends.
 */
public final class ProxyProbe implements AutoCloseable {

    private static final Duration INTERVAL = Duration.ofSeconds(1);

    private final long pid;
    private final int managementPort;
    private final List<String> jvmOptions;
    private final String config;
    private final CpuSampler.CpuSource source;
    private final CpuSampler.Sampler sampler;
    private ProxyMetricsScrape atWindowStart = new ProxyMetricsScrape(0, 0, 0);
    private long windowStartNanos = System.nanoTime();

    private ProxyProbe(long pid, int managementPort, List<String> jvmOptions, String config) {
        this.pid = pid;
        this.managementPort = managementPort;
        this.jvmOptions = List.copyOf(jvmOptions);
        this.config = config;
        this.source = CpuSampler.sourceFor(pid);
        this.sampler = new CpuSampler.Sampler(pid, INTERVAL, source.cpuNanos());
    }

    /**
     * @param config the proxy's configuration as run, stored with the result so a reader knows what was measured
     */
    public static ProxyProbe start(long pid, int managementPort, List<String> jvmOptions, String config) {
        ProxyProbe probe = new ProxyProbe(pid, managementPort, jvmOptions, config);
        probe.sampler.start();
        return probe;
    }

    public void windowStarts() {
        windowStartNanos = System.nanoTime();
        atWindowStart = ProxyMetricsScrape.read(managementPort);
    }

    /** Stops sampling and returns what was seen. */
    public RunRecord.Proxy finish() {
        ProxyMetricsScrape gc = ProxyMetricsScrape.read(managementPort).since(atWindowStart);
        // Rates over the time between the two scrapes, which is the window the counts cover.
        double seconds = (System.nanoTime() - windowStartNanos) / 1e9;
        List<RunRecord.Sample> samples = sampler.stop().stream()
                .map(s -> new RunRecord.Sample(s.epochMillis(), s.cpuNanos(), s.rssBytes()))
                .toList();
        Double limit = source.limitCores().isPresent() ? source.limitCores().getAsDouble() : null;
        return new RunRecord.Proxy(pid, source.description(), limit, jvmOptions, config, samples,
                new RunRecord.Gc(gc.gcCollections(), gc.gcPauseSeconds(), gc.heapUsedBytes()),
                gc.totalRequests() > 0 ? RunRecord.Requests.over(seconds, gc.produceRequests(), gc.fetchRequests(), gc.totalRequests()) : null);
    }

    @Override
    public void close() {
        sampler.stop();
    }
}
