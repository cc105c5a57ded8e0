package io.sluice.bridge.sse;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

import com.fasterxml.jackson.databind.JsonNode;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import io.kroxylicious.testing.kafka.api.KafkaCluster;
import io.kroxylicious.testing.kafka.common.BrokerCluster;
import io.kroxylicious.testing.kafka.junit5ext.KafkaClusterExtension;
import io.sluice.bridge.auth.TestAuthenticator;
import io.sluice.bridge.server.BridgeFixture;
import io.sluice.bridge.server.KafkaHelper;
import io.sluice.proxy.testing.PythonClients;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * The stream read by clients the team did not write: {@code curl -N} and Python's {@code httpx} + {@code httpx-sse}
 * (resuming with {@code Last-Event-ID} on another node).
 */
@ExtendWith(KafkaClusterExtension.class)
class SseForeignClientsTest {

    private static final Duration TIMEOUT = Duration.ofSeconds(90);

    @BrokerCluster(numBrokers = 1)
    static KafkaCluster cluster;

    static KafkaHelper kafka;

    @BeforeAll
    static void helper() {
        kafka = new KafkaHelper(cluster.getBootstrapServers());
    }

    @AfterAll
    static void closeHelper() {
        kafka.close();
    }

    @Test
    void curlReadsTheStreamWithABearerHeaderAndResumesWithLastEventId() throws Exception {
        assumeTrue(onPath("curl"), "curl is not installed");
        String topic = kafka.createTopic(1);
        String token = TestAuthenticator.token("cat", topic + "/*", "");
        try (BridgeFixture bridge = BridgeFixture.start(cluster.getBootstrapServers(), "node-a", "topics: " + topic)) {
            String url = "http://127.0.0.1:" + bridge.port() + "/ws/sse?endpoint=/" + topic + "/*";
            String id;
            Process curl = curl(url, token, null);
            try {
                BlockingQueue<String> lines = lines(curl);
                assertThat(next(lines, "event: subscribed")).isNotNull();
                long first = kafka.send(topic, "k", "one");
                id = next(lines, "id: ").substring(4);
                assertThat(next(lines, "data: ")).contains("\"seq\":" + first).contains("\"payload\":\"one\"");
            }
            finally {
                curl.destroy();
            }
            long second = kafka.send(topic, "k", "two");
            Process resumed = curl(url, token, id);
            try {
                BlockingQueue<String> lines = lines(resumed);
                assertThat(next(lines, "id: ")).isNotNull();
                assertThat(next(lines, "data: ")).contains("\"seq\":" + second).contains("\"payload\":\"two\"");
            }
            finally {
                resumed.destroy();
            }
        }
    }

    /**
     * httpx-sse recovers from the start of both partitions (an id at -1 in each), stops part way, and resumes on the
     * other node with the last id it saw: every message once, in each partition's order.
     */
    @Test
    void pythonHttpxSseReadsTheStreamAndResumesOnAnotherNodeWithLastEventId() throws Exception {
        String topic = kafka.createTopic(2);
        String token = TestAuthenticator.token("pia", topic + "/*", "");
        try (BridgeFixture a = BridgeFixture.start(cluster.getBootstrapServers(), "node-a", "topics: " + topic);
             BridgeFixture b = BridgeFixture.start(cluster.getBootstrapServers(), "node-b", "topics: " + topic)) {
            for (int i = 0; i < 6; i++) {
                kafka.send(topic, "k" + i, "{\"n\":" + i + "}");
            }
            String query = "/ws/sse?endpoint=/" + topic + "/*";
            Map<String, Long> fromTheStart = new java.util.LinkedHashMap<>();
            try (SseClient probe = SseClient.open(a.port(), "endpoint=/" + topic + "/*", token, null)) {
                probe.expect("connected");
                probe.expect("subscribed").json().get("positions").forEach(p -> fromTheStart.put(p.get("epoch").asText(), -1L));
            }
            JsonNode first = PythonClients.run("sse_resume.py", TIMEOUT, Map.of("TOKEN", token, "LAST_EVENT_ID",
                    EventIds.encode(List.of(fromTheStart))), "--url", "http://127.0.0.1:" + a.port() + query, "--count", "4").ok();
            assertThat(first.get("contentType").asText()).isEqualTo("text/event-stream; charset=utf-8");
            assertThat(first.get("retry").asInt()).isEqualTo(2000);
            assertThat(first.get("types").get(0).asText()).isEqualTo("connected");
            assertThat(first.get("types").get(1).asText()).isEqualTo("subscribed");
            for (int i = 6; i < 12; i++) {
                kafka.send(topic, "k" + i, "{\"n\":" + i + "}");
            }
            JsonNode second = PythonClients.run("sse_resume.py", TIMEOUT, Map.of("TOKEN", token, "LAST_EVENT_ID",
                    first.get("lastId").asText()), "--url", "http://127.0.0.1:" + b.port() + query, "--count", "8").ok();
            List<Integer> received = new ArrayList<>();
            Map<String, Long> lastSeq = new java.util.HashMap<>();
            for (JsonNode run : List.of(first, second)) {
                for (JsonNode m : run.get("messages")) {
                    received.add(m.get(2).asInt());
                    Long before = lastSeq.put(m.get(0).asText(), m.get(1).asLong());
                    assertThat(before == null || before < m.get(1).asLong()).as("in order per partition").isTrue();
                }
            }
            assertThat(received).doesNotHaveDuplicates().containsExactlyInAnyOrder(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11);
        }
    }

    private static Process curl(String url, String token, String lastEventId) throws Exception {
        List<String> command = new ArrayList<>(List.of("curl", "-sN", "--max-time", "60", "-H", "Authorization: Bearer " + token));
        if (lastEventId != null) {
            command.addAll(List.of("-H", "Last-Event-ID: " + lastEventId));
        }
        command.add(url);
        return new ProcessBuilder(command).redirectErrorStream(true).start();
    }

    private static BlockingQueue<String> lines(Process process) {
        BlockingQueue<String> lines = new LinkedBlockingQueue<>();
        Thread reader = new Thread(() -> {
            try (BufferedReader in = new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8))) {
                for (String line = in.readLine(); line != null; line = in.readLine()) {
                    lines.add(line);
                }
            }
            catch (Exception e) {
                // The process was stopped.
            }
        }, "curl-output");
        reader.setDaemon(true);
        reader.start();
        return lines;
    }

    /** The next line starting with {@code prefix}, skipping others; fails after 30 s. */
    private static String next(BlockingQueue<String> lines, String prefix) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (System.nanoTime() < deadline) {
            String line = lines.poll(1, TimeUnit.SECONDS);
            if (line != null && line.startsWith(prefix)) {
                return line;
            }
        }
        throw new AssertionError("no line starting with '" + prefix + "' within 30 s");
    }

    private static boolean onPath(String program) {
        try {
            return new ProcessBuilder(program, "--version").redirectErrorStream(true).start().waitFor(10, TimeUnit.SECONDS);
        }
        catch (Exception e) {
            return false;
        }
    }
}
