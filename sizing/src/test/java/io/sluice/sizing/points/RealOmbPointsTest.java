package io.sluice.sizing.points;

import java.nio.file.Path;

import org.junit.jupiter.api.Test;

import io.sluice.results.read.MeasuredRun;
import io.sluice.results.read.ResultSet;
import io.sluice.results.read.ResultSetReader;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

/** The points measured from a real OMB run's results (sluice-run-results' test resources, read from its folder). */
class RealOmbPointsTest {

    /** sizing/results/src/test/resources/omb-results, from the sizing module's folder (the tests' working directory). */
    private static final Path RESULTS = Path.of("results", "src", "test", "resources", "omb-results");

    @Test
    void aResultSetOfPlainOmbResultsReadsWithItsWorkloadsAndSaysItHasNoCpu() {
        ResultSet set = ResultSetReader.read(RESULTS);

        assertThat(set.problems()).isEmpty();
        assertThat(set.runs()).hasSize(2);
        assertThat(set.runs()).allSatisfy(run -> {
            assertThat(run.tool()).isEqualTo(MeasuredRun.TOOL_OMB_WITHOUT_RUN);
            assertThat(run.run()).isEmpty();
        });
        MeasuredRun twoTopics = set.runs().stream().filter(r -> r.workload().topics() == 2).findFirst().orElseThrow();
        assertThat(twoTopics.workload().producerRate()).isEqualTo(2000);
        assertThat(twoTopics.workload().consumerPerSubscription()).isEqualTo(2);

        TrafficPoint point = PointMeasurer.measure(twoTopics);
        assertThat(point.saturated()).as("reasons %s", point.reasons()).isFalse();
        assertThat(point.cpuMillicores()).isEmpty();
        assertThat(point.cpuMissing()).hasValue("no run.json beside the result");
        // 2,000 msg/s of 1 KiB produced and consumed once: about 4.1 MB/s through a proxy.
        assertThat(point.totalMBps()).isCloseTo(2 * 2000 * 1024 / 1e6, within(0.05));
    }
}
