package io.sluice.omb.scenario;

import io.sluice.bench.scenario.KmsCalls;
import io.sluice.results.scenario.PerformanceTable;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import java.nio.file.Path;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Test;

/** The seed's figures from a real OMB result (a run of `sluice omb` here, from ../shared/omb-results) and the table built from them. */
class OmbFiguresTest {

    @org.junit.jupiter.api.io.TempDir
    Path results;

    private static Path storedResult() throws Exception {
        return Path.of(OmbFiguresTest.class.getResource("omb-10topics-1partition-1kb-5k.json").toURI());
    }

    @Test
    void readsOmbsAggregatesAndAveragesItsRateSeries() throws Exception {
        OmbFigures figures = OmbFigures.read(storedResult());

        assertThat(figures.publishAvgMs()).isCloseTo(71.45867124124258, within(1e-9));
        assertThat(figures.publishP99Ms()).isCloseTo(404.045, within(1e-9));
        assertThat(figures.endToEndAvgMs()).isCloseTo(86.4090089102769, within(1e-9));
        // The mean of the six 10-second intervals of a 5,000 msg/s workload.
        assertThat(figures.publishRate()).isBetween(4_900.0, 5_100.0);
    }

    @Test
    void deltaIsTheSeedsCell() {
        assertThat(OmbFigures.delta(2.79, 2.62)).isEqualTo("+0.17 ms (+6%)");
        assertThat(OmbFigures.delta(12.19, 9.12)).isEqualTo("+3.07 ms (+34%)");
        assertThat(OmbFigures.delta(1.0, 2.0)).isEqualTo("-1.00 ms (-50%)");
        assertThat(OmbFigures.delta(1.0, 0)).isEqualTo("n/a");
    }

    @Test
    void rowsPutEachTargetBesideTheBrokerWithTheEncryptingProxysKmsCalls() throws Exception {
        OmbFigures direct = OmbFigures.read(storedResult());
        OmbFigures encrypted = new OmbFigures(direct.publishRate(), direct.publishAvgMs() + 1, direct.publishP99Ms() * 2, direct.endToEndAvgMs());
        KroxyliciousOmbRun.Settings command = new KroxyliciousOmbRun.Settings(null, null, null, new int[] {5000}, 0, 500, 1, 1, null, 5, "vault");
        String workload = KroxyliciousOmbRun.workloads(command).get(0).name();

        List<Map<String, String>> rows = KroxyliciousOmbRun.rows(List.of(
                new KroxyliciousOmbRun.Measured(workload, "direct", direct, KmsCalls.NONE, storedResult()),
                new KroxyliciousOmbRun.Measured(workload, "encryption", encrypted, new KmsCalls(3, 11), storedResult())),
                KroxyliciousOmbRun.workloads(command));

        assertThat(rows).hasSize(2);
        assertThat(rows.get(0)).containsEntry("Target", "direct").containsEntry("Δ publish avg", "baseline").containsEntry("KMS data-key generations", "n/a");
        assertThat(rows.get(1)).containsEntry("Target", "encryption")
                .containsEntry("Publish avg", "72.46 ms")
                .containsEntry("Δ publish avg", "+1.00 ms (+1%)")
                .containsEntry("Δ publish p99", "+404.05 ms (+100%)")
                .containsEntry("Δ E2E avg", "+0.00 ms (+0%)")
                .containsEntry("KMS data-key generations", "3")
                .containsEntry("KMS decryptions", "11");

        // And they fit the docs table's columns (the report puts Date, Commit and Load in front, the command behind).
        Path doc = java.nio.file.Files.copy(Path.of("../docs/performance.md"), results.resolve("performance.md"));
        List<Map<String, String>> full = new java.util.ArrayList<>();
        for (Map<String, String> row : rows) {
            Map<String, String> cells = new java.util.LinkedHashMap<>();
            cells.put("Date", "2026-11-27");
            cells.put("Commit", "`abcdef0`");
            cells.put("Load start → end", "0.1 → 0.2");
            cells.putAll(row);
            cells.put("Command", "`test`");
            full.add(cells);
        }
        PerformanceTable.append(doc, KroxyliciousOmbRun.NAME, full);
        assertThat(java.nio.file.Files.readString(doc)).contains("| 2026-11-27 | `abcdef0` | 0.1 → 0.2 | " + workload + " | encryption | ");
    }
}
