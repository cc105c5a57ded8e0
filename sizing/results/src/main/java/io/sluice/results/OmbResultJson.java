package io.sluice.results;

import java.util.List;
import java.util.function.Function;
import java.util.function.ToDoubleFunction;

import org.HdrHistogram.Histogram;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;

/**
 * Writes a run in OpenMessaging Benchmark's result format (its {@code TestResult}): the same field names, one
 * array element per stats interval, rates in messages per second for the whole workload, latencies in milliseconds
 * except publish delay in microseconds. A reader of OMB results reads these without knowing who wrote them.
 */
public final class OmbResultJson {

    /** One interval; latency histograms in microseconds. */
    public record Interval(double publishRate, double publishErrorRate, double consumeRate, long backlog,
                           Histogram publishLatency, Histogram publishDelay, Histogram endToEnd) {
    }

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final String[] PERCENTILES = { "50pct", "75pct", "95pct", "99pct", "999pct", "9999pct" };
    private static final double[] PERCENTILE_VALUES = { 50, 75, 95, 99, 99.9, 99.99 };

    private OmbResultJson() {
    }

    /**
     * @param driver the name OMB would take from its driver file; here, which target the load went to
     */
    public static ObjectNode of(Workload workload, String driver, List<Interval> intervals,
                                Histogram publishLatency, Histogram publishDelay, Histogram endToEnd) {
        ObjectNode root = JSON.createObjectNode();
        root.put("workload", workload.name());
        root.put("driver", driver);
        root.put("messageSize", workload.messageSize());
        root.put("topics", workload.topics());
        root.put("partitions", workload.partitionsPerTopic());
        root.put("producersPerTopic", workload.producersPerTopic());
        root.put("consumersPerTopic", workload.subscriptionsPerTopic() * workload.consumerPerSubscription());
        series(root, "publishRate", intervals, Interval::publishRate);
        series(root, "publishErrorRate", intervals, Interval::publishErrorRate);
        series(root, "consumeRate", intervals, Interval::consumeRate);
        ArrayNode backlog = root.putArray("backlog");
        intervals.forEach(i -> backlog.add(i.backlog()));
        latencySeries(root, "publishLatency", intervals, Interval::publishLatency, 1000.0);
        latencySeries(root, "publishDelayLatency", intervals, Interval::publishDelay, 1.0);
        aggregated(root, "aggregatedPublishLatency", publishLatency, 1000.0);
        aggregated(root, "aggregatedPublishDelayLatency", publishDelay, 1.0);
        latencySeries(root, "endToEndLatency", intervals, Interval::endToEnd, 1000.0);
        aggregated(root, "aggregatedEndToEndLatency", endToEnd, 1000.0);
        return root;
    }

    private static void series(ObjectNode root, String field, List<Interval> intervals, ToDoubleFunction<Interval> value) {
        ArrayNode array = root.putArray(field);
        intervals.forEach(i -> array.add(value.applyAsDouble(i)));
    }

    /** {@code divisor} turns the histograms' microseconds into the field's unit (1000 for ms, 1 for µs). */
    private static void latencySeries(ObjectNode root, String prefix, List<Interval> intervals,
                                      Function<Interval, Histogram> histogram, double divisor) {
        series(root, prefix + "Avg", intervals, i -> mean(histogram.apply(i)) / divisor);
        for (int p = 0; p < PERCENTILES.length; p++) {
            double percentile = PERCENTILE_VALUES[p];
            series(root, prefix + PERCENTILES[p], intervals, i -> histogram.apply(i).getValueAtPercentile(percentile) / divisor);
        }
        series(root, prefix + "Max", intervals, i -> histogram.apply(i).getMaxValue() / divisor);
    }

    private static void aggregated(ObjectNode root, String prefix, Histogram histogram, double divisor) {
        root.put(prefix + "Avg", mean(histogram) / divisor);
        for (int p = 0; p < PERCENTILES.length; p++) {
            root.put(prefix + PERCENTILES[p], histogram.getValueAtPercentile(PERCENTILE_VALUES[p]) / divisor);
        }
        root.put(prefix + "Max", histogram.getMaxValue() / divisor);
    }

    // An empty interval (nothing acknowledged) has no mean; OMB writes 0 there too.
    private static double mean(Histogram histogram) {
        return histogram.getTotalCount() == 0 ? 0 : histogram.getMean();
    }
}
