package io.sluice.results.testing;

import java.io.IOException;
import java.nio.file.Path;

/**
 * A result set like {@code bench proxy --rates} writes: direct and passthrough at five rates, the top one saturated,
 * the proxy's CPU following 40 mc + 2.5 mc per MB/s of total traffic (with a little noise).
 */
public final class SweepFixture {

    private static final double[] RATES_MBPS = { 5, 10, 20, 30, 60 };
    private static final double[] NOISE = { 3, -4, 2, -1, 0 };

    private SweepFixture() {
    }

    public static Path write(Path runs) throws IOException {
        for (int i = 0; i < RATES_MBPS.length; i++) {
            double rate = RATES_MBPS[i];
            boolean saturated = rate >= 60;
            double achieved = saturated ? 0.8 : 1.0;
            String workload = "1topic-1partition-1kb-" + (int) rate + "mbps";
            double messages = rate * 1e6 / 1024;
            SyntheticRuns.write(runs, "direct", workload, 1024, messages, saturated ? 0.9 : 1.0, 0, 0);
            double total = 2 * rate * achieved;
            SyntheticRuns.write(runs, "passthrough", workload, 1024, messages, achieved, 40 + 2.5 * total + NOISE[i], (260L + i * 10) << 20);
        }
        return runs;
    }
}
