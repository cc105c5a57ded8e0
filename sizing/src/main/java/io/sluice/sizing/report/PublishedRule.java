package io.sluice.sizing.report;

import io.sluice.sizing.fit.Estimate;

/**
 * Kroxylicious's published sizing rule, the one reference figure for a Kafka proxy's CPU: 10 millicores per MB/s
 * of total proxy traffic (produce + each consumer group's consume), measured with record encryption on AMD EPYC-Rome
 * at 2 GHz with AES-NI, and 25 as a conservative figure. Their passthrough guidance is that the proxy is not the
 * bottleneck. https://kroxylicious.io/performance/
 */
public final class PublishedRule {

    public static final double MEASURED_MC_PER_MBPS = 10;
    public static final double CONSERVATIVE_MC_PER_MBPS = 25;
    public static final String SOURCE = "https://kroxylicious.io/performance/";

    private PublishedRule() {
    }

    /** One sentence comparing a fitted cost per MB/s with the published rule. */
    public static String compare(Estimate ours) {
        return String.format("Kroxylicious publishes %.0f mc per MB/s (record encryption, AMD EPYC-Rome 2 GHz) and %.0f as a conservative rule;"
                        + " this fit is %.0f %% of the first and %.0f %% of the second",
                MEASURED_MC_PER_MBPS, CONSERVATIVE_MC_PER_MBPS, 100 * ours.value() / MEASURED_MC_PER_MBPS, 100 * ours.value() / CONSERVATIVE_MC_PER_MBPS);
    }
}
