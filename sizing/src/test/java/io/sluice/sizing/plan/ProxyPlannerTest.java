package io.sluice.sizing.plan;

import java.nio.file.Path;
import java.util.List;

import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import io.sluice.results.read.ResultSetReader;
import io.sluice.results.testing.SyntheticRuns;
import io.sluice.sizing.fit.CpuFit;
import io.sluice.sizing.fit.CpuFitter;
import io.sluice.sizing.points.PointMeasurer;
import io.sluice.sizing.points.TrafficPoint;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class ProxyPlannerTest {

    @TempDir
    static Path runs;
    static List<TrafficPoint> points;
    static CpuFit fit;

    /** An exact line, 50 mc + 2 mc per MB/s, measured up to 240 MB/s of total traffic, peak RSS 300 MiB. */
    @BeforeAll
    static void measure() throws Exception {
        for (double produceMBps : new double[] { 10, 30, 60, 120 }) {
            SyntheticRuns.write(runs, "passthrough", "r" + (int) produceMBps, 1000, produceMBps * 1000, 1.0, 50 + 2 * 2 * produceMBps, 300L << 20);
        }
        points = ResultSetReader.read(runs).runs().stream().map(PointMeasurer::measure).toList();
        fit = CpuFitter.fit("passthrough", points).primary().orElseThrow();
    }

    @Test
    void onePodWhenTheLoadFitsAndOneMoreForNPlusOne() {
        // 100 MB/s produced + 1 group = 200 MB/s: 50 + 400 = 450 mc, x1.3 = 585, rounded up to 600.
        PodPlan plan = ProxyPlanner.plan(fit, points, new TrafficSpec(100, 1, 1000, 1.3, 2000));

        assertThat(plan.podsForLoad()).isEqualTo(1);
        assertThat(plan.replicas()).isEqualTo(2);
        assertThat(plan.millicoresPerPod()).isEqualTo(600);
        // Memory: the JVM the runs recorded (-Xmx512m) with its other pools (JvmBudget), 1088 MiB, more than the
        // 300 MiB x1.3 = 390 MiB measured.
        assertThat(plan.jvm().heapBytes()).isEqualTo(512L << 20);
        assertThat(plan.memoryBytesPerPod()).isEqualTo(plan.jvm().limitBytes()).isGreaterThan(448L << 20);
        // SyntheticRuns record -Xmx512m and no collector, which the plan says.
        assertThat(plan.warnings()).singleElement().asString().startsWith("no run named its collector");
    }

    @Test
    void moreTrafficThanOnePodMayCarrySpreadsItAndEachPodPaysTheBaseline() {
        // Capped at 500 mc: 2 pods of 100 MB/s each need (50 + 200) x1.3 = 325 -> 400 mc.
        PodPlan plan = ProxyPlanner.plan(fit, points, new TrafficSpec(100, 1, 1000, 1.3, 500));

        assertThat(plan.podsForLoad()).isEqualTo(2);
        assertThat(plan.replicas()).isEqualTo(3);
        assertThat(plan.millicoresPerPod()).isEqualTo(400);
        assertThat(plan.trafficPerPodMBps()).isEqualTo(100);
    }

    @Test
    void trafficBeyondWhatWasMeasuredIsFlaggedAsExtrapolation() {
        PodPlan plan = ProxyPlanner.plan(fit, points, new TrafficSpec(400, 2, 1000, 1.3, 4000));

        assertThat(plan.trafficPerPodMBps()).isGreaterThan(240);
        assertThat(plan.warnings()).anySatisfy(w -> assertThat(w).contains("extrapolated"));
    }

    @Test
    void aMessageSizeNeverMeasuredIsFlagged() {
        PodPlan plan = ProxyPlanner.plan(fit, points, new TrafficSpec(10, 1, 4096, 1.3, 2000));

        assertThat(plan.warnings()).anySatisfy(w -> assertThat(w).contains("no run used 4096-byte messages"));
    }

    @Test
    void aPodTooSmallForTheBaselineIsRefused() {
        assertThatThrownBy(() -> ProxyPlanner.plan(fit, points, new TrafficSpec(100, 1, 1000, 3, 100)))
                .hasMessageContaining("the fitted baseline alone is 50 mc");
    }
}
