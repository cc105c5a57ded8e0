package io.sluice.bench.bridge.scenario;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import io.sluice.bench.bridge.FailoverResult;
import io.sluice.results.scenario.PerformanceTable;

import static org.assertj.core.api.Assertions.assertThat;

/** The row a run records fits the table in docs/performance.md, and says "no" with the counts when recovery was not exact. */
class BridgeFailoverRowTest {

    private static FailoverResult result(int exact, long missing, long gapEvents) {
        return new FailoverResult(3, 3000, 100, 2, "kill", "bench-bridge-1", 1000, 1000, 2.5, 0.6, 1.9, 2.5, 0.5, 1.2, 1.3,
                1010, 0, 0, 12_000, 360_000, 0, 3000, exact, 3000 - exact, 0, 0, 0, missing, 0, gapEvents, 3000,
                15, 4.0, 6.5, 2.0, 1.0, 3.0, 900.0, 1500.0, 3.5, Map.of("bench-bridge-1", 1000), 0, null);
    }

    @Test
    void theRowFitsTheDocsTable(@TempDir Path dir) throws Exception {
        Path doc = Files.copy(Path.of("../../docs/performance.md"), dir.resolve("performance.md"));
        Map<String, String> row = new LinkedHashMap<>();
        row.put("Date", "2026-01-01");
        row.put("Commit", "`abc1234`");
        row.put("Load start → end", "0.5 → 1.2");
        row.putAll(BridgeFailoverScenario.row(result(3000, 0, 0)));
        row.put("Command", "`./sluice bench scenario bridge-failover`");

        PerformanceTable.append(doc, BridgeFailoverScenario.NAME, List.of(row));

        assertThat(Files.readString(doc)).contains("| 3 | 3,000 | 200 → 6,000 | 1,000 (SIGKILL) | 2.50 | 0.60 / 1.90 | yes (3,000 of 3,000 clients exact");
    }

    @Test
    void aRunWithGapsIsNotExactAndSaysHowMany() {
        FailoverResult withGaps = result(2990, 40, 0);
        assertThat(withGaps.exact()).isFalse();
        assertThat(BridgeFailoverScenario.row(withGaps).get("Exact")).startsWith("no (2,990 of 3,000 clients exact").contains("10 with gaps, 40 missing");
        FailoverResult gapEventsOnly = result(3000, 0, 2);
        assertThat(gapEventsOnly.exact()).as("a gap event is a recovery the server could not make whole").isFalse();
    }
}
