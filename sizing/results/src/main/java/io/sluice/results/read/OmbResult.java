package io.sluice.results.read;

import java.util.Arrays;
import java.util.Optional;

/**
 * The part of an OpenMessaging Benchmark result a sizing uses. Rates are messages per second for the whole workload
 * per stats interval (consume summed over every subscription); publish latency in ms, publish delay in µs, as OMB
 * writes them.
 */
public record OmbResult(String workload,
                        String driver,
                        int messageSize,
                        int topics,
                        int partitions,
                        double[] publishRate,
                        double[] publishErrorRate,
                        double[] consumeRate,
                        double[] backlog,
                        double publishLatency50Ms,
                        double publishLatency99Ms,
                        Optional<Double> publishDelay50Micros,
                        Optional<Double> endToEnd99Ms) {

    public double meanPublishRate() {
        return mean(publishRate);
    }

    public double meanConsumeRate() {
        return mean(consumeRate);
    }

    public double meanPublishErrorRate() {
        return publishErrorRate.length == 0 ? 0 : mean(publishErrorRate);
    }

    public double firstBacklog() {
        return backlog.length == 0 ? 0 : backlog[0];
    }

    public double lastBacklog() {
        return backlog.length == 0 ? 0 : backlog[backlog.length - 1];
    }

    private static double mean(double[] values) {
        return Arrays.stream(values).average().orElse(0);
    }
}
