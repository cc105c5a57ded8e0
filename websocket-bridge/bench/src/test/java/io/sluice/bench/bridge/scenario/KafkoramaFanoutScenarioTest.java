package io.sluice.bench.bridge.scenario;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import picocli.CommandLine;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

import io.sluice.cli.CommandLines;
import io.sluice.testkit.fixtures.SharedKafka;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A tiny fan-out run end to end: a real Kafka and a real bridge in their own JVMs, as bench bridge starts them, with the
 * seed's ratio of clients to endpoints. Asserts real figures and a projection from them, never speed.
 */
class KafkoramaFanoutScenarioTest {

    @Test
    void tinyRunDeliversToEveryClientAndProjectsTheSeedsScales(@TempDir Path dir) throws Exception {
        ByteArrayOutputStream captured = new ByteArrayOutputStream();
        // Recorded into a copy of the real docs/performance.md: its table's header must be the columns the run writes.
        Path doc = Files.copy(Path.of("../../docs/performance.md"), dir.resolve("performance.md"));
        int exit = CommandLines.configure(new CommandLine(new KafkoramaFanoutScenario(new PrintStream(captured, true, StandardCharsets.UTF_8)))).execute(
                "--clients", "50", "--rate", "10", "--payload", "128", "--warmup", "2", "--duration", "3", "--bridge-jvm", "-Xmx256m",
                "--quiet-below", "100", "--results", dir.toString(), "--record", doc.toString(),
                "--kafka", SharedKafka.bootstrap(), "--topic", SharedKafka.topic("fanout"));
        String output = captured.toString(StandardCharsets.UTF_8);

        assertThat(exit).as(output).isZero();

        assertThat(Files.readString(doc)).contains("| `./sluice bench scenario kafkorama-fanout ");
        assertThat(output).contains("| Metric | Value |", "| Concurrent clients | 50 (0 failed) on 4 endpoints |", "| Latency 99th percentile |",
                "Projected to the seed's scales", "1,000,000 clients: ", "[   1s] warm-up");
        List<Path> files;
        try (var listing = Files.list(dir.resolve(KafkoramaFanoutScenario.NAME))) {
            files = listing.toList();
        }
        assertThat(files).hasSize(1);
        JsonNode record = new ObjectMapper().readTree(files.get(0).toFile());
        assertThat(record.at("/rows/0/Concurrent clients").asText()).isEqualTo("50 on 4 endpoints");
        JsonNode fanOut = record.at("/details/fanOut");
        assertThat(fanOut.get("messagesDelivered").asLong()).isPositive();
        assertThat(fanOut.get("messagesUnstamped").asLong()).isZero();
        assertThat(fanOut.get("bridgeCpuSeconds").asDouble()).isPositive();
        assertThat(record.at("/details/bridgeCoresPerMeasuredSecond")).hasSize(3);
        assertThat(record.at("/details/projected/1000000").asText()).startsWith("1,000,000 clients: ");
    }

    @Test
    void theSeedsRatioSetsTheEndpoints() {
        assertThat(KafkoramaFanoutScenario.endpointsFor(19_000)).isEqualTo(1520);
        assertThat(KafkoramaFanoutScenario.endpointsFor(125_000)).isEqualTo(10_000);
        assertThat(KafkoramaFanoutScenario.endpointsFor(3)).isEqualTo(1);
    }
}
