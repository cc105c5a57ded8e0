package io.sluice.bench.bridge.scenario;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import picocli.CommandLine;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

import io.sluice.cli.CommandLines;
import io.sluice.testkit.fixtures.SharedKafka;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The failover scenario end to end at tiny scale: a real Kafka and two real bridge nodes, each in its own JVM, behind
 * the round-robin front; one node SIGKILLed under load. Asserts that its clients were really moved (there were some,
 * and each subscribed again elsewhere), that recovery was exact against the topic read back, and that the figures and
 * the result file are there; never how fast.
 */
class BridgeFailoverScenarioTest {

    @Test
    void killingANodeUnderLoadMovesItsClientsToTheOtherWhoRecoverExactlyWhatTheTopicHolds(@TempDir Path dir) throws Exception {
        ByteArrayOutputStream captured = new ByteArrayOutputStream();
        int exit = CommandLines.configure(new CommandLine(new BridgeFailoverScenario(new PrintStream(captured, true, StandardCharsets.UTF_8)))).execute(
                "--nodes", "2", "--clients", "40", "--endpoints", "4", "--rate", "20", "--payload", "64", "--warmup", "1", "--window", "3",
                "--reconnect-first-ms", "300", "--settle", "60", "--bridge-jvm", "-Xmx256m", "--bridge-kafka", "fetch.max.wait.ms=5",
                "--quiet-below", "100", "--results", dir.toString(), "--kafka", SharedKafka.bootstrap());
        String output = captured.toString(StandardCharsets.UTF_8);

        assertThat(exit).as(output).isZero();
        assertThat(output).contains("SIGKILL bench-bridge-1", "== bridge-failover: 2 nodes, 40 clients, SIGKILL of bench-bridge-1 ==",
                "| Recovery exact | yes (40 of 40 clients exact", "] storm ");
        List<Path> files;
        try (Stream<Path> found = Files.list(dir.resolve("bridge-failover"))) {
            files = found.toList();
        }
        assertThat(files).singleElement();
        JsonNode record = new ObjectMapper().readTree(files.get(0).toFile());
        JsonNode result = record.get("details").get("result");
        int stopped = result.get("stoppedNodeClients").asInt();
        assertThat(stopped).as("round robin put clients on the killed node").isPositive().isLessThan(40);
        assertThat(result.get("resubscribed").asInt()).as(output).isEqualTo(stopped);
        assertThat(result.get("reconnects").asInt()).isGreaterThanOrEqualTo(stopped);
        assertThat(result.get("allResubscribedSeconds").asDouble()).isPositive();
        assertThat(result.get("messagesProduced").asLong()).isPositive();
        assertThat(result.get("messagesDelivered").asLong()).isPositive();
        assertThat(result.get("messagesUnstamped").asLong()).isZero();
        assertThat(result.get("clientsChecked").asInt()).isEqualTo(40);
        assertThat(result.get("clientsExact").asInt()).as(output).isEqualTo(40);
        assertThat(result.get("missingMessages").asLong()).isZero();
        assertThat(result.get("duplicateMessages").asLong()).isZero();
        assertThat(result.get("gapEvents").asLong()).isZero();
        assertThat(result.get("clientsCaughtUp").asInt()).isEqualTo(40);
        assertThat(result.get("survivorsCpuBeforeSeconds").asDouble()).isPositive();
        assertThat(result.get("survivorsCpuStormSeconds").asDouble()).isPositive();
        assertThat(result.get("latencyP99BeforeMs").asDouble()).isPositive();
        JsonNode row = record.get("rows").get(0);
        assertThat(row.get("Nodes").asText()).isEqualTo("2");
        assertThat(row.get("Killed node's clients").asText()).isEqualTo(stopped + " (SIGKILL)");
        assertThat(row.get("Exact").asText()).startsWith("yes (40 of 40 clients exact");
        assertThat(row.get("Command").asText()).startsWith("`./sluice bench scenario bridge-failover --nodes 2");
    }
}
