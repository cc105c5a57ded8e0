package io.sluice.omb.scenario;

import java.io.IOException;
import java.nio.file.Path;
import java.util.Locale;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

/**
 * The figures Kroxylicious's performance page reports per run, read from an OpenMessaging Benchmark result file:
 * publish latency average and p99, end-to-end latency average (all in ms, OMB's aggregated values over the test
 * period), and the publish rate (the mean of OMB's per-interval rates, msg/s for the whole workload).
 */
record OmbFigures(double publishRate, double publishAvgMs, double publishP99Ms, double endToEndAvgMs) {

    private static final ObjectMapper JSON = new ObjectMapper();

    static OmbFigures read(Path resultFile) throws IOException {
        return of(JSON.readTree(resultFile.toFile()));
    }

    static OmbFigures of(JsonNode result) {
        JsonNode rates = result.path("publishRate");
        if (!rates.isArray() || rates.isEmpty()) {
            throw new IllegalArgumentException("not an OMB result: no publishRate series");
        }
        double sum = 0;
        for (JsonNode rate : rates) {
            sum += rate.asDouble();
        }
        return new OmbFigures(sum / rates.size(), number(result, "aggregatedPublishLatencyAvg"), number(result, "aggregatedPublishLatency99pct"),
                number(result, "aggregatedEndToEndLatencyAvg"));
    }

    private static double number(JsonNode result, String field) {
        JsonNode value = result.get(field);
        if (value == null || !value.isNumber()) {
            throw new IllegalArgumentException("not an OMB result: no " + field);
        }
        return value.asDouble();
    }

    /** The seed's delta cell: {@code +0.17 ms (+7%)}; "n/a" without a baseline. */
    static String delta(double value, double baseline) {
        if (Double.isNaN(baseline) || baseline == 0) {
            return "n/a";
        }
        double change = value - baseline;
        return String.format(Locale.ROOT, "%+.2f ms (%+.0f%%)", change, 100 * change / baseline);
    }

    static String ms(double value) {
        return String.format(Locale.ROOT, "%.2f ms", value);
    }

    static String rate(double value) {
        return String.format(Locale.ROOT, "%,.0f msg/s", value);
    }
}
