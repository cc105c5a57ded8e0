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
 * A tiny gaming run end to end: a real Kafka and a real bridge in their own JVMs, gamers receiving the fan-out and, in
 * the same window, gamers publishing through the bridge. Asserts both directions' real figures and the exact count.
 */
class MigratoryDataGamingScenarioTest {

    @Test
    void tinyRunDeliversToEveryGamerAndFindsEveryAckedPublishInKafkaOnce(@TempDir Path dir) throws Exception {
        ByteArrayOutputStream captured = new ByteArrayOutputStream();
        // Recorded into a copy of the real docs/performance.md: its table's header must be the columns the run writes.
        Path doc = Files.copy(Path.of("../../docs/performance.md"), dir.resolve("performance.md"));
        int exit = CommandLines.configure(new CommandLine(new MigratoryDataGamingScenario(new PrintStream(captured, true, StandardCharsets.UTF_8)))).execute(
                "--gamers", "20", "--every", "0.1", "--payload", "256", "--warmup", "2", "--duration", "3", "--bridge-jvm", "-Xmx256m",
                "--quiet-below", "100", "--results", dir.toString(), "--record", doc.toString(),
                "--kafka", SharedKafka.bootstrap(), "--topic", SharedKafka.topic("gaming"));
        String output = captured.toString(StandardCharsets.UTF_8);

        assertThat(exit).as(output).isZero();

        assertThat(Files.readString(doc)).contains("| `./sluice bench scenario migratorydata-gaming ");
        assertThat(output).contains("| Metric | Value |", "| Standard deviation for latency |", "| Publish → ack latency mean / p50 / p99 / max |",
                "| Every acked publish in Kafka exactly once | yes", "[   1s] warm-up", "        publish ");
        List<Path> files;
        try (var listing = Files.list(dir.resolve(MigratoryDataGamingScenario.NAME))) {
            files = listing.toList();
        }
        assertThat(files).hasSize(1);
        JsonNode record = new ObjectMapper().readTree(files.get(0).toFile());
        assertThat(record.at("/rows/0/Gamers").asText()).isEqualTo("20 receiving + 20 publishing");
        JsonNode delivery = record.at("/details/delivery");
        assertThat(delivery.get("messagesDelivered").asLong()).isPositive();
        assertThat(delivery.get("messagesUnstamped").asLong()).isZero();
        assertThat(delivery.get("latencyMaxMs").asDouble()).isPositive();
        assertThat(delivery.get("bridgeCpuSeconds").asDouble()).isPositive();
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
    }
}
