package io.sluice.results.scenario;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class PerformanceTableTest {

    private static final String DOC = """
            # Performance

            <!-- scenario: other -->
            | Date | Figure |
            |---|---|
            | seed | 1 |

            <!-- scenario: fanout -->
            Some words about the seed.

            | Date | Figure |
            |---|---|
            | published | 5 ms |
            | 2026-11-20 | 7 ms |

            After the table.
            """;

    @TempDir
    Path dir;

    @Test
    void aRowGoesAfterTheLastRowOfTheScenariosOwnTableAndNowhereElse() throws Exception {
        Path doc = Files.writeString(dir.resolve("performance.md"), DOC);

        PerformanceTable.append(doc, "fanout", List.of(row("2026-11-27", "4 | 5 ms")));

        assertThat(Files.readString(doc)).isEqualTo(DOC.replace("| 2026-11-20 | 7 ms |\n", "| 2026-11-20 | 7 ms |\n| 2026-11-27 | 4 \\| 5 ms |\n"));
    }

    @Test
    void aRunWhoseColumnsAreNotTheTablesIsRefusedAndTheFileIsUntouched() throws Exception {
        Path doc = Files.writeString(dir.resolve("performance.md"), DOC);
        Map<String, String> renamed = new LinkedHashMap<>();
        renamed.put("Date", "2026-11-27");
        renamed.put("Latency", "4 ms");

        assertThatThrownBy(() -> PerformanceTable.append(doc, "fanout", List.of(renamed)))
                .hasMessageContaining("[Date, Figure]").hasMessageContaining("[Date, Latency]");
        assertThat(Files.readString(doc)).isEqualTo(DOC);
    }

    @Test
    void aScenarioWithoutAMarkerIsNamedInTheError() throws Exception {
        Path doc = Files.writeString(dir.resolve("performance.md"), DOC);

        assertThatThrownBy(() -> PerformanceTable.append(doc, "missing", List.of(row("x", "y"))))
                .hasMessageContaining("<!-- scenario: missing -->");
    }

    private static Map<String, String> row(String date, String figure) {
        Map<String, String> row = new LinkedHashMap<>();
        row.put("Date", date);
        row.put("Figure", figure);
        return row;
    }
}
