package io.sluice.bench.bridge;

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
import io.sluice.sizing.bridge.BridgePoint;
import io.sluice.sizing.bridge.BridgeResultReader;
import io.sluice.testkit.fixtures.SharedKafka;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A tiny run end to end: a real Kafka and a real bridge, each in its own JVM, as the command starts them. Asserts that
 * messages arrive and the figures are reported, never how fast (speed is measured, not tested).
 */
class BenchBridgeCommandTest {

    @Test
    void tinyRunDeliversStampedMessagesPrintsTheTableAndWritesAPointSizingReads(@TempDir Path dir) throws Exception {
        Path json = dir.resolve("result.json");
        ByteArrayOutputStream captured = new ByteArrayOutputStream();
        int exit = CommandLines.configure(new CommandLine(new BenchBridgeCommand(new PrintStream(captured, true, StandardCharsets.UTF_8)))).execute(
                "--connections", "50", "--endpoints", "5", "--rate", "20", "--payload", "128",
                "--warmup", "2", "--duration", "3", "--bridge-jvm", "-Xmx256m", "--bridge-kafka", "fetch.max.wait.ms=5", "--json", json.toString(),
                "--out", dir.resolve("runs").toString(), "--scenario", "tiny");
        String output = captured.toString(StandardCharsets.UTF_8);

        assertThat(exit).as(output).isZero();
        assertThat(output).contains("| Concurrent clients | 50 ", "| Outgoing throughput |", "| Latency 99th percentile |",
                "| Bridge CPU per million messages delivered |", "of it in the kernel)", "| Bridge memory per connection |", "[   1s] warm-up");
        JsonNode result = new ObjectMapper().readTree(Files.readString(json));
        assertThat(result.get("connectionsSubscribed").asInt()).isEqualTo(50);
        assertThat(result.get("messagesDelivered").asLong()).isPositive();
        assertThat(result.get("messagesUnstamped").asLong()).isZero();
        assertThat(result.get("latencyMaxMs").asDouble()).isPositive();
        assertThat(result.get("bridgeCpuSeconds").asDouble()).isPositive();
        assertThat(result.get("bridgeKernelCpuSecondsPerMillion").asDouble())
                .isPositive().isLessThan(result.get("bridgeCpuSecondsPerMillion").asDouble());
        assertThat(result.get("heapPerConnectionBytes").isNumber()).isTrue();
        List<BridgePoint> points = BridgeResultReader.readAll(dir.resolve("runs"));
        assertThat(points).singleElement().satisfies(p -> {
            assertThat(p.scenario()).isEqualTo("tiny");
            assertThat(p.connections()).isEqualTo(50);
            assertThat(p.messageBytes()).isEqualTo(128);
            assertThat(p.targetMessagesPerSecond()).isEqualTo(50 * 20.0);
            assertThat(p.cpuMillicores()).isPositive();
            assertThat(p.rssBytes().getAsLong()).isPositive();
            assertThat(p.deliveryLatencyMeanMs()).hasValueSatisfying(ms -> assertThat(ms).isPositive());
        });
    }

    @Test
    void structuredRunWithAvroValuesFieldListsAndDeltasStampsEveryMessageAndCountsTheDeltas(@TempDir Path dir) throws Exception {
        Path json = dir.resolve("result.json");
        ByteArrayOutputStream captured = new ByteArrayOutputStream();
        int exit = CommandLines.configure(new CommandLine(new BenchBridgeCommand(new PrintStream(captured, true, StandardCharsets.UTF_8)))).execute(
                "--connections", "40", "--endpoints", "4", "--rate", "10", "--value", "avro", "--fields", "/id,/timestamp,/firstNumber,/secondNumber",
                "--delta", "--warmup", "2", "--duration", "3", "--bridge-jvm", "-Xmx256m", "--bridge-kafka", "fetch.max.wait.ms=5",
                "--json", json.toString(), "--kafka", SharedKafka.bootstrap(), "--topic", SharedKafka.topic("structured"));
        String output = captured.toString(StandardCharsets.UTF_8);

        assertThat(exit).as(output).isZero();
        assertThat(output).contains("avro values (Lightstreamer scenario 3), fields /id,/timestamp,/firstNumber,/secondNumber, deltas",
                "| Bytes on the wire per message |", "| Delivered as deltas |", "| Latency mean (standard deviation) |");
        JsonNode result = new ObjectMapper().readTree(Files.readString(json));
        assertThat(result.get("messagesDelivered").asLong()).isPositive();
        // Every message, whole or delta, carried the stamp where the bench looks for it.
        assertThat(result.get("messagesUnstamped").asLong()).as(output).isZero();
        // Only a subscription's first message is whole, and that came in the warm-up: after it an update changes the
        // timestamp and one number at most, always a delta.
        assertThat(result.get("deltasDelivered").asLong()).isPositive().isLessThanOrEqualTo(result.get("messagesDelivered").asLong());
        assertThat(result.get("payloadBytes").asInt()).as("the Avro record, four 256-character texts and more").isGreaterThan(1024);
        assertThat(result.get("bytesPerMessage").asDouble()).as("a projection of four fields, mostly as deltas").isLessThan(400);
        assertThat(result.get("latencyStdDevMs").isNumber()).isTrue();
    }

    @Test
    void tinySseRunDeliversStampedEventsAndNamesTheTransportInTheSummaryAndTheResult(@TempDir Path dir) throws Exception {
        Path json = dir.resolve("result.json");
        ByteArrayOutputStream captured = new ByteArrayOutputStream();
        int exit = CommandLines.configure(new CommandLine(new BenchBridgeCommand(new PrintStream(captured, true, StandardCharsets.UTF_8)))).execute(
                "--transport", "sse", "--connections", "30", "--endpoints", "3", "--rate", "20", "--payload", "128",
                "--warmup", "2", "--duration", "3", "--bridge-jvm", "-Xmx256m", "--bridge-kafka", "fetch.max.wait.ms=5", "--json", json.toString(),
                "--out", dir.resolve("runs").toString(), "--kafka", SharedKafka.bootstrap(), "--topic", SharedKafka.topic("sse"));
        String output = captured.toString(StandardCharsets.UTF_8);

        assertThat(exit).as(output).isZero();
        assertThat(output).contains("30 sse connections", "== sluice bench bridge over sse:", "| Transport | sse ", "| Concurrent clients | 30 ",
                "| Outgoing throughput |", "| Bytes on the wire per message |", "| Latency 99th percentile |",
                "| Bridge CPU per million messages delivered |", "| Bridge memory per connection |", "SSE body bytes");
        JsonNode result = new ObjectMapper().readTree(Files.readString(json));
        assertThat(result.get("transport").asText()).isEqualTo("sse");
        assertThat(result.get("connectionsSubscribed").asInt()).as(output).isEqualTo(30);
        assertThat(result.get("serverCloses").asInt()).isZero();
        assertThat(result.get("firstProblem").isNull()).as(output).isTrue();
        assertThat(result.get("messagesDelivered").asLong()).isPositive();
        assertThat(result.get("messagesUnstamped").asLong()).as("every event's stamp found where the WebSocket frame's is").isZero();
        assertThat(result.get("latencyMaxMs").asDouble()).isPositive();
        // An SSE message is its WebSocket JSON plus the id, "data: " and chunk framing: more than the value alone.
        assertThat(result.get("bytesPerMessage").asDouble()).isGreaterThan(128);
        assertThat(result.get("bridgeCpuSecondsPerMillion").asDouble()).isPositive();
        assertThat(result.get("rssPerConnectionBytes").isNumber()).isTrue();
        assertThat(result.get("heapPerConnectionBytes").isNumber()).isTrue();
        assertThat(BridgeResultReader.readAll(dir.resolve("runs"))).singleElement()
                .satisfies(p -> assertThat(p.scenario()).as("SSE points are their own curve").isEqualTo("fanout-128b-sse"));
    }

    @Test
    void tinyMqttRunDeliversStampedPublishesToMqttSubscribers(@TempDir Path dir) throws Exception {
        Path json = dir.resolve("result.json");
        ByteArrayOutputStream captured = new ByteArrayOutputStream();
        int exit = CommandLines.configure(new CommandLine(new BenchBridgeCommand(new PrintStream(captured, true, StandardCharsets.UTF_8)))).execute(
                "--transport", "mqtt", "--connections", "30", "--endpoints", "3", "--rate", "20", "--payload", "128",
                "--warmup", "2", "--duration", "3", "--bridge-jvm", "-Xmx256m", "--bridge-kafka", "fetch.max.wait.ms=5", "--json", json.toString(),
                "--out", dir.resolve("runs").toString(), "--kafka", SharedKafka.bootstrap(), "--topic", SharedKafka.topic("mqtt"));
        String output = captured.toString(StandardCharsets.UTF_8);

        assertThat(exit).as(output).isZero();
        assertThat(output).contains("== sluice bench bridge over mqtt:", "| Transport | mqtt ", "| Concurrent clients | 30 ", "MQTT packet bytes");
        JsonNode result = new ObjectMapper().readTree(Files.readString(json));
        assertThat(result.get("transport").asText()).isEqualTo("mqtt");
        assertThat(result.get("connectionsSubscribed").asInt()).as(output).isEqualTo(30);
        assertThat(result.get("firstProblem").isNull()).as(output).isTrue();
        assertThat(result.get("messagesDelivered").asLong()).isPositive();
        assertThat(result.get("messagesUnstamped").asLong()).as("every PUBLISH's payload starts with its stamp").isZero();
        // A PUBLISH is its fixed header, the topic and the value: a few bytes over the value, far less than a JSON frame.
        assertThat(result.get("bytesPerMessage").asDouble()).isBetween(128.0, 160.0);
        assertThat(BridgeResultReader.readAll(dir.resolve("runs"))).singleElement()
                .satisfies(p -> assertThat(p.scenario()).as("MQTT points are their own curve").isEqualTo("fanout-128b-mqtt"));
    }

    @Test
    void anUnknownTransportIsRefusedNamingTheOption() {
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        CommandLine cli = CommandLines.configure(new CommandLine(new BenchBridgeCommand(new PrintStream(new ByteArrayOutputStream()))));
        cli.setErr(new java.io.PrintWriter(err, true, StandardCharsets.UTF_8));
        assertThat(cli.execute("--transport", "foo")).isNotZero();
        assertThat(err.toString(StandardCharsets.UTF_8)).contains("--transport takes websocket, sse or mqtt, not foo");
    }

    @Test
    void fieldsAndDeltasAreRefusedWithRawValuesAndAFieldListMustKeepTheStamp() {
        for (String[] args : List.of(new String[] {"--delta"}, new String[] {"--fields", "/timestamp"},
                new String[] {"--value", "json", "--fields", "/firstNumber"}, new String[] {"--value", "xml"})) {
            ByteArrayOutputStream err = new ByteArrayOutputStream();
            CommandLine cli = CommandLines.configure(new CommandLine(new BenchBridgeCommand(new PrintStream(new ByteArrayOutputStream()))));
            cli.setErr(new java.io.PrintWriter(err, true, StandardCharsets.UTF_8));
            assertThat(cli.execute(args)).as(String.join(" ", args)).isNotZero();
            assertThat(err.toString(StandardCharsets.UTF_8)).containsAnyOf("need structured values", "must keep /timestamp", "--value takes raw, json or avro");
        }
    }

    @Test
    void refusesMoreConnectionsThanOpenFilesAllow() {
        assertThat(FdLimit.problem(Integer.MAX_VALUE - FdLimit.HEADROOM)).contains("ulimit -n");
    }
}
