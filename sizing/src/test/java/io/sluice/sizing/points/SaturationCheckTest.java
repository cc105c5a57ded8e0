package io.sluice.sizing.points;

import java.nio.file.Path;
import java.util.Optional;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import io.sluice.results.Workload;
import io.sluice.results.read.OmbResult;
import io.sluice.results.read.ResultSetReader;
import io.sluice.results.testing.SyntheticRuns;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

class SaturationCheckTest {

    private static final Workload WORKLOAD = new Workload("w", 1, 1, 1024, null, 1, 1, 1, 10_000, 0, 1, 0.0);

    @Test
    void aRunThatKeptItsRateIsHealthy() {
        assertThat(SaturationCheck.reasons(WORKLOAD, result(rates(9_900), rates(9_900), new double[] { 5, 8, 3 }, 200.0))).isEmpty();
    }

    @Test
    void publishingUnderNinetyFivePercentOfTheTargetIsSaturation() {
        assertThat(SaturationCheck.reasons(WORKLOAD, result(rates(9_000), rates(9_000), new double[] { 0 }, 200.0)))
                .containsExactly("published 90.0 % of the target 10,000 msg/s");
    }

    @Test
    void consumersFallingBehindShowInRateAndBacklog() {
        assertThat(SaturationCheck.reasons(WORKLOAD, result(rates(10_000), rates(8_000), new double[] { 1_000, 20_000, 60_000 }, 200.0)))
                .containsExactly("consumers read 80.0 % of what was published x 1 subscription(s)", "backlog grew from 1,000 to 60,000 messages");
    }

    @Test
    void aProducerLateAgainstItsScheduleIsSaturatedEvenAtFullRate() {
        assertThat(SaturationCheck.reasons(WORKLOAD, result(rates(10_000), rates(10_000), new double[] { 0 }, 25_000.0)))
                .containsExactly("median publish delay 25.0 ms: the producer fell behind its schedule");
    }

    @Test
    void aShrinkingBacklogIsACatchUpNotSaturation() {
        assertThat(SaturationCheck.reasons(WORKLOAD, result(rates(10_000), rates(30_000), new double[] { 900_000, 500_000, 100_000 }, 200.0)))
                .isEmpty();
    }

    @Test
    void cpuIsTheAverageOverTheMeasuredWindowOnly(@TempDir Path runs) throws Exception {
        // Warm-up samples (before the window) at the same slope must not change the figure.
        SyntheticRuns.write(runs, "passthrough", "w", 1024, 1000, 1, 420, 300L << 20);

        TrafficPoint point = PointMeasurer.measure(ResultSetReader.read(runs).runs().get(0));

        assertThat(point.cpuMillicores()).get().satisfies(mc -> assertThat(mc).isCloseTo(420, within(0.01)));
        assertThat(point.peakRssBytes()).hasValue(300L << 20);
    }

    private static double[] rates(double rate) {
        return new double[] { rate, rate, rate };
    }

    private static OmbResult result(double[] publish, double[] consume, double[] backlog, double delay50Micros) {
        return new OmbResult("w", "d", 1024, 1, 1, publish, new double[] { 0, 0, 0 }, consume, backlog, 2, 10,
                Optional.of(delay50Micros), Optional.empty());
    }
}
