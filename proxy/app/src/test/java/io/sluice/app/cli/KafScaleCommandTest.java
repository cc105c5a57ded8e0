package io.sluice.app.cli;

import io.sluice.cli.CommandLines;
import io.sluice.testkit.fixtures.SharedKafka;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

import picocli.CommandLine;

/** The whole scenario at tiny scale against a real broker and a real proxy in a child JVM, restarted under load. */
class KafScaleCommandTest {

    @TempDir
    Path results;

    @Test
    void measuresBothPathsAndRecoversExactlyFromBothRestarts() throws Exception {
        Path doc = Files.copy(Path.of("../../docs/performance.md"), results.resolve("performance.md"));
        ByteArrayOutputStream captured = new ByteArrayOutputStream();
        int exit = CommandLines.configure(new CommandLine(new KafScaleCommand(new PrintStream(captured, true, StandardCharsets.UTF_8))))
                .execute("--records", "3000", "--partitions", "2", "--rate", "300", "--phase-seconds", "2", "--quiet-below", "100",
                        "--results", results.toString(), "--record", doc.toString(), "--kafka", SharedKafka.bootstrap());
        String output = captured.toString(StandardCharsets.UTF_8);

        assertThat(exit).as(output).isZero();
        List<Path> files;
        try (Stream<Path> found = Files.list(results.resolve("kafscale")).filter(p -> p.toString().endsWith(".json"))) {
            files = found.toList();
        }
        assertThat(files).as(output).hasSize(1);
        JsonNode rows = new ObjectMapper().readTree(files.get(0).toFile()).path("rows");
        List<String> tests = new ArrayList<>();
        rows.forEach(row -> tests.add(row.path("Target").asText() + " / " + row.path("Test").asText()));
        assertThat(tests).containsExactly("direct / hot path (produce + consume)", "direct / backlog from the beginning",
                "direct / consumer restart (same group)", "proxy / hot path (produce + consume)", "proxy / backlog from the beginning",
                "proxy / consumer restart (same group)", "proxy / proxy restart (SIGTERM, same addresses)");
        for (JsonNode row : rows) {
            String test = row.path("Test").asText();
            if (test.startsWith("hot path")) {
                assertThat(messagesPerSecond(row.path("Produce").asText())).as(test).isPositive();
                assertThat(messagesPerSecond(row.path("Consume").asText())).as(test).isPositive();
                assertThat(row.path("E2E latency p50 / p95 / p99").asText()).endsWith(" ms");
            } else if (test.startsWith("backlog")) {
                assertThat(messagesPerSecond(row.path("Consume").asText())).as(test).isPositive();
            } else {
                assertThat(acknowledged(row.path("Records").asText())).as(test).isPositive();
                assertThat(row.path("Records").asText()).as(test).endsWith(", 0 send errors");
                assertThat(row.path("Lost").asText()).as(test).isEqualTo("0");
                assertThat(row.path("Duplicates").asText()).as(test).isEqualTo("0");
            }
            if (test.startsWith("consumer restart")) {
                assertThat(row.path("Resume").asText()).as(test).endsWith("at the committed offset: yes");
            }
            if (test.startsWith("proxy restart")) {
                assertThat(row.path("Resume").asText()).as(test).matches("produce [0-9.]+ s, consume [0-9.]+ s after the stop");
            }
        }
        assertThat(output).contains("== kafscale (", "proxy restart: ");
        // The rows fit the docs table's columns: --record appended all seven under the published ones.
        assertThat(Files.readString(doc)).contains("| proxy | proxy restart (SIGTERM, same addresses) | ");
        assertThat(Files.readAllLines(doc).stream().filter(line -> line.contains("`./sluice bench scenario kafscale --records 3000")).count()).isEqualTo(7);
    }

    private static double messagesPerSecond(String cell) {
        return Double.parseDouble(cell.substring(0, cell.indexOf(" msg/s")).replace(",", ""));
    }

    private static long acknowledged(String cell) {
        return Long.parseLong(cell.substring(0, cell.indexOf(" acknowledged")).replace(",", ""));
    }
}
