package io.sluice.results;

import java.util.List;
import java.util.Map;

import com.fasterxml.jackson.annotation.JsonInclude;

/**
 * {@code WORKLOAD.run.json}: everything about a run that a sizing needs and OMB's result file lacks. Written by
 * {@code sluice bench proxy --rates} and {@code sluice omb}; read by {@code sluice size}.
 *
 * @param tool           {@link #TOOL_BENCH} or {@link #TOOL_OMB}: which load generator produced the result beside it
 * @param toolVersion    that tool's version, as far as it can be told
 * @param target         the target's name: {@code direct}, {@code passthrough}, ...
 * @param workload       the workload that was run
 * @param measuredFromMs start of the measured window (after warm-up), epoch milliseconds
 * @param measuredToMs   end of the measured window, epoch milliseconds
 * @param proxy          the proxy's configuration and resource use; null for a run against the broker directly
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
public record RunRecord(String tool,
                        String toolVersion,
                        String target,
                        Workload workload,
                        double targetProduceMBps,
                        int warmupSeconds,
                        int testSeconds,
                        long measuredFromMs,
                        long measuredToMs,
                        Machine machine,
                        Proxy proxy,
                        Map<String, String> versions) {

    public static final String TOOL_BENCH = "sluice-bench";
    public static final String TOOL_OMB = "openmessaging-benchmark";

    /**
     * The machine the run was on; the proxy shares it with the broker and the load unless said otherwise.
     *
     * @param loadAverage the one-minute load average when the run ended: above the core count, something else was
     *                    competing for the CPU and the run's figures are noisier for it
     */
    @JsonInclude(JsonInclude.Include.NON_NULL)
    public record Machine(int cores, String cpuModel, long memoryBytes, String os, String note, Double loadAverage) {
    }

    /**
     * @param cpuSource    where CPU time was read: the proxy's own cgroup or /proc/PID/stat
     * @param cpuLimitCores the proxy's CPU quota, if it ran under one
     * @param samples      CPU and memory of the proxy process from the start of warm-up to the end of the run
     * @param gc           the proxy JVM's garbage collection during the measured window, from its /metrics
     * @param requests     the requests the proxy answered during the measured window, from its /metrics; absent in
     *                     records written before it was counted
     */
    @JsonInclude(JsonInclude.Include.NON_NULL)
    public record Proxy(long pid, String cpuSource, Double cpuLimitCores, List<String> jvmOptions, String config,
                        List<Sample> samples, Gc gc, Requests requests) {

        /** Without request counts, as records were written before they were counted. */
        public Proxy(long pid, String cpuSource, Double cpuLimitCores, List<String> jvmOptions, String config, List<Sample> samples, Gc gc) {
            this(pid, cpuSource, cpuLimitCores, jvmOptions, config, samples, gc, null);
        }
    }

    /** @param cpuNanos cumulative CPU time of the proxy (user + system) */
    public record Sample(long epochMs, long cpuNanos, long rssBytes) {
    }

    /**
     * Requests the proxy answered between two scrapes of its {@code sluice_requests_total}, at the start and the end
     * of the measured window. The proxy's CPU follows these (a wake-up, a header read, a write per request) more than
     * it follows bytes, so the sizing fits to both.
     *
     * @param seconds between the two scrapes: the divisor of the rates
     * @param produce Produce requests
     * @param fetch   Fetch requests (consumers' and followers' alike; through a proxy, consumers')
     * @param total   requests of every API: Produce, Fetch, Metadata, heartbeats, offset commits, ...
     */
    public record Requests(double seconds, long produce, long fetch, long total,
                           double producePerSecond, double fetchPerSecond, double totalPerSecond) {

        public static Requests over(double seconds, long produce, long fetch, long total) {
            if (!(seconds > 0)) {
                throw new IllegalArgumentException("a request rate needs a window longer than zero, not " + seconds + " s");
            }
            return new Requests(seconds, produce, fetch, total, produce / seconds, fetch / seconds, total / seconds);
        }
    }

    /** @param heapUsedBytes heap in use at the end of the window */
    public record Gc(long collections, double pauseSeconds, long heapUsedBytes) {
    }
}
