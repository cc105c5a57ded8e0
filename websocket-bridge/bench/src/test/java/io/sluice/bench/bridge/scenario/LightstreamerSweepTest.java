package io.sluice.bench.bridge.scenario;

import io.sluice.cli.CommandLines;
import io.sluice.testkit.fixtures.SharedKafka;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

import picocli.CommandLine;

/**
 * Lightstreamer's scenario 2 at a tiny scale against a real Kafka and a bridge in a child JVM: two points of the
 * sweep, the seed's tables printed with this run beside the published row, the result file written and the rows
 * appended to a copy of the real docs/performance.md (so its table's header is the one the scenario writes).
 */
class LightstreamerSweepTest {

    @TempDir
    Path dir;

    @Test
    void twoPointsOfScenario2AreMeasuredPrintedInTheSeedsShapeAndRecordedInTheDocsTable() throws Exception {
        Path doc = Files.copy(Path.of("../../docs/performance.md"), dir.resolve("performance.md"));
        String before = Files.readString(doc);
        ByteArrayOutputStream captured = new ByteArrayOutputStream();

        int exit = CommandLines.configure(new CommandLine(new Lightstreamer2Command(new PrintStream(captured, true, StandardCharsets.UTF_8))))
                .execute("--clients", "40,20", "--warmup", "2", "--duration", "3", "--quiet-below", "100",
                        "--results", dir.resolve("results").toString(), "--record", doc.toString(),
                        "--kafka", SharedKafka.bootstrap(), "--topic", SharedKafka.topic("lightstreamer"));
        String output = captured.toString(StandardCharsets.UTF_8);

        assertThat(exit).as(output).isZero();
        assertThat(output).contains("| No. of clients | 20 | 40 | 4K | 6K |", "| Lightstreamer Clients (published) | - | - | 8 (16) | 12 (17) |",
                "| Lightstreamer Clients (published) | - | - | 90M | 133.5M |");
        // Each client is subscribed to one of 40 keys at 2.5 msg/s: the points delivered messages and measured a latency.
        Matcher ours = Pattern.compile("\\| Sluice \\(this run, websocket\\) \\| (\\d+) \\((\\d+)\\) \\| (\\d+) \\((\\d+)\\) \\|").matcher(output);
        assertThat(ours.find()).as(output).isTrue();

        JsonNode record = new ObjectMapper().readTree(Files.list(dir.resolve("results/lightstreamer-2")).findFirst().orElseThrow().toFile());
        assertThat(record.path("quietAtStart").asBoolean()).isTrue();
        JsonNode rows = record.path("rows");
        assertThat(rows).hasSize(2);
        for (JsonNode row : rows) {
            String delivered = row.path("Delivered msgs/s (expected)").asText();
            assertThat(Double.parseDouble(delivered.substring(0, delivered.indexOf(' ')).replace(",", ""))).as(delivered).isPositive();
        }
        assertThat(rows.get(0).path("Clients").asText()).isEqualTo("20");
        assertThat(record.path("details").path("results")).hasSize(2);

        String after = Files.readString(doc);
        List<String> added = after.lines().filter(line -> !before.contains(line)).toList();
        assertThat(added).hasSize(2).allSatisfy(line -> assertThat(line).startsWith("| ").contains("./sluice bench scenario lightstreamer-2 --clients 40,20"));
    }
}
