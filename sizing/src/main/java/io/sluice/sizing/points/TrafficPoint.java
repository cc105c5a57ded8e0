package io.sluice.sizing.points;

import java.util.List;
import java.util.Optional;
import java.util.OptionalDouble;
import java.util.OptionalLong;

import io.sluice.results.RunRecord;
import io.sluice.results.read.MeasuredRun;

/**
 * One measured run as a point for the fit: the traffic that crossed the proxy and the CPU it took. Traffic counts
 * every byte twice that is produced and consumed once, because it crosses the proxy twice, and once more for every
 * further subscription (consumer group) that reads it. MB is 10^6 bytes of message values.
 *
 * @param cpuMillicores  the proxy's CPU over the measured window; empty for the broker directly or without samples
 * @param cpuMissing     why there is no CPU figure, when there is none
 * @param saturated      whether the run failed to carry its load (see {@link SaturationCheck})
 * @param reasons        why it counts as saturated; empty when healthy
 * @param requests       the requests the proxy answered in the measured window; absent where the run did not count them
 */
public record TrafficPoint(MeasuredRun run,
                           double targetProduceRate,
                           double publishRate,
                           double consumeRate,
                           Optional<Double> cpuMillicores,
                           Optional<String> cpuMissing,
                           OptionalLong peakRssBytes,
                           boolean saturated,
                           List<String> reasons,
                           Optional<RunRecord.Requests> requests) {

    public String target() {
        return run.target();
    }

    public String workload() {
        return run.result().workload();
    }

    public int messageBytes() {
        return run.result().messageSize();
    }

    /** Produced plus consumed, in MB/s. */
    public double totalMBps() {
        return (publishRate + consumeRate) * messageBytes() / 1e6;
    }

    /** Produced plus consumed, in thousands of records per second. */
    public double totalKRecordsPerSecond() {
        return (publishRate + consumeRate) / 1000;
    }

    /**
     * Produce plus Fetch requests the proxy answered, in thousands per second: the requests that carry the traffic,
     * and the ones a traffic's shape predicts (see {@code ProducerBatching}, {@code RequestRate}). Metadata, heartbeats
     * and commits, a few per client per second, stay in the baseline.
     */
    public OptionalDouble totalKRequestsPerSecond() {
        return requests.map(r -> OptionalDouble.of((r.producePerSecond() + r.fetchPerSecond()) / 1000)).orElse(OptionalDouble.empty());
    }

    /** What the workload asked for, produced plus every subscription's consumption, in MB/s. */
    public double targetTotalMBps() {
        return targetProduceRate * (1 + run.workload().subscriptionsPerTopic()) * messageBytes() / 1e6;
    }

    /** Whether this run had a proxy to measure, as opposed to the broker directly or a result without run.json. */
    public boolean hasProxy() {
        return run.run().map(info -> info.hasProxy()).orElse(false);
    }

    public boolean usableForFit() {
        return !saturated && cpuMillicores.isPresent();
    }
}
