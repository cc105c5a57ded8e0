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
 * A tiny publish run end to end: a real Kafka and a real bridge in their own JVMs, WebSocket clients publishing through
 * the bridge, a kafka-clients consumer reading what arrived. Asserts real figures and the exact count, never speed.
 */
class KafkoramaPublishScenarioTest {

    @Test
    void tinyRunAcksEveryPublishFindsEachInKafkaOnceAndWritesTheResult(@TempDir Path dir) throws Exception {
        ByteArrayOutputStream captured = new ByteArrayOutputStream();
        // Recorded into a copy of the real docs/performance.md: its table's header must be the columns the run writes.
        Path doc = Files.copy(Path.of("../../docs/performance.md"), dir.resolve("performance.md"));
        int exit = CommandLines.configure(new CommandLine(new KafkoramaPublishScenario(new PrintStream(captured, true, StandardCharsets.UTF_8)))).execute(
                "--clients", "20", "--rate", "10", "--payload", "128", "--warmup", "2", "--duration", "3", "--bridge-jvm", "-Xmx256m",
                "--quiet-below", "100", "--results", dir.toString(), "--record", doc.toString(),
                "--kafka", SharedKafka.bootstrap(), "--topic", SharedKafka.topic("publish"));
        String output = captured.toString(StandardCharsets.UTF_8);

        assertThat(exit).as(output).isZero();

        assertThat(Files.readString(doc)).contains("| `./sluice bench scenario kafkorama-publish ");
        assertThat(output).contains("| Metric | Value |", "| Publish → ack latency mean / p50 / p99 / max |", "exact |", "[   1s] warm-up");
        List<Path> files;
        try (var listing = Files.list(dir.resolve(KafkoramaPublishScenario.NAME))) {
            files = listing.toList();
        }
        assertThat(files).hasSize(1);
        JsonNode record = new ObjectMapper().readTree(files.get(0).toFile());
        assertThat(record.at("/rows/0/Publishing clients").asText()).isEqualTo("20");
        JsonNode publish = record.at("/details/publish");
        assertThat(publish.get("acked").asLong()).isPositive();
        assertThat(publish.get("ackedInAll").asLong()).isGreaterThanOrEqualTo(publish.get("acked").asLong());
        assertThat(publish.get("inKafka").asLong()).isEqualTo(publish.get("ackedInAll").asLong());
        assertThat(publish.get("lost").asLong()).isZero();
        assertThat(publish.get("duplicates").asLong()).isZero();
        assertThat(publish.get("writtenNotAcked").asLong()).isZero();
        assertThat(publish.at("/ackLatency/count").asLong()).isPositive();
        assertThat(publish.at("/ackLatency/maxMs").asDouble()).isPositive();
        assertThat(publish.at("/kafkaLatency/count").asLong()).isPositive();
        assertThat(publish.get("bridgeCpuSeconds").asDouble()).isPositive();
    }
}
