package io.sluice.sizing.projection;


import java.util.List;

import org.junit.jupiter.api.Test;

import io.sluice.sizing.fit.Estimate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

class OnePointProjectionTest {

    private static final long MIB = 1 << 20;

    @Test
    void cpuScalesWithMessagesAndMemoryWithConnections() {
        // 0.5 cores for 10,000 msg/s; 100 MiB before, 200 MiB with 10,000 connections.
        var p = new OnePointProjection(0.5, 10_000, List.of(0.5, 0.5, 0.5), 100 * MIB, 200 * MIB, 10_000);

        Estimate cores = p.cores(1_000_000, 1);
        assertThat(cores.value()).isCloseTo(50, within(1e-9));
        // No spread between the seconds: no noise to report.
        assertThat(cores.halfWidth95()).isCloseTo(0, within(1e-9));
        // 100 MiB + 100 × 10 MiB per 1000 connections... = 100 + 1000 × 10 MiB.
        assertThat(p.memoryGiB(1_000_000).value()).isCloseTo((100 + 1000 * 10) / 1024.0, within(1e-9));
    }

    @Test
    void theSpreadOfTheSecondsBecomesTheCoefficientsError() {
        // Mean 0.5, sample sd 0.1 over 4 seconds: standard error 0.05, 10 % of the mean; t(3) = 3.182.
        var p = new OnePointProjection(0.5, 10_000, List.of(0.4, 0.6, 0.4, 0.6), 0, MIB, 1000);
        double sd = Math.sqrt((4 * 0.01) / 3);
        double relative = sd / Math.sqrt(4) / 0.5;
        Estimate cores = p.cores(1_000_000, 1);
        assertThat(cores.value()).isCloseTo(50, within(1e-9));
        assertThat(cores.halfWidth95()).isCloseTo(50 * relative * 3.182, within(0.05));
        assertThat(p.describe(1_000_000, 1)).contains("1,000,000 clients: 50.0 ±");
    }

    @Test
    void oneSecondHasNoError() {
        var p = new OnePointProjection(0.5, 10_000, List.of(0.5), 0, MIB, 1000);
        assertThat(p.hasCpuError()).isFalse();
        assertThat(p.describe(125_000, 1)).contains("(error unknown)");
    }
}
