package io.sluice.bridge.sse;

import io.kroxylicious.testing.kafka.junit5ext.KafkaClusterExtension;
import org.junit.jupiter.api.extension.ExtendWith;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import com.fasterxml.jackson.databind.JsonNode;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import io.kroxylicious.testing.kafka.api.KafkaCluster;
import io.kroxylicious.testing.kafka.common.BrokerCluster;
import io.sluice.bridge.auth.TestAuthenticator;
import io.sluice.bridge.server.BridgeFixture;
import io.sluice.bridge.server.KafkaHelper;
import io.sluice.testkit.fixtures.PythonClients;

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

    @RegisterExtension
    static final KafkaHelper kafka = KafkaHelper.perClass(() -> cluster.getBootstrapServers());

    @Test
    void curlReadsTheStreamWithABearerHeaderAndResumesWithLastEventId() throws Exception {
        assumeTrue(StreamLines.onPath("curl"), "curl is not installed");
        String topic = kafka.createTopic(1);
        String token = TestAuthenticator.token("cat", topic + "/*", "");
        try (BridgeFixture bridge = BridgeFixture.start(cluster.getBootstrapServers(), "node-a", "topics: " + topic)) {
            String url = "http://127.0.0.1:" + bridge.port() + "/ws/sse?endpoint=/" + topic + "/*";
            String id;
            Process curl = curl(url, token, null);
            try {
                StreamLines lines = StreamLines.of(curl.getInputStream());
                assertThat(lines.next("event: subscribed")).isNotNull();
                long first = kafka.send(topic, "k", "one");
                id = lines.next("id: ").substring(4);
                assertThat(lines.next("data: ")).contains("\"seq\":" + first).contains("\"payload\":\"one\"");
            }
            finally {
                curl.destroy();
            }
            long second = kafka.send(topic, "k", "two");
            Process resumed = curl(url, token, id);
            try {
                StreamLines lines = StreamLines.of(resumed.getInputStream());
                assertThat(lines.next("id: ")).isNotNull();
                assertThat(lines.next("data: ")).contains("\"seq\":" + second).contains("\"payload\":\"two\"");
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

    /** httpx-sse parses the record with raw CR, LF and CRLF in its JSON as one event with the record's value. */
    @Test
    void pythonHttpxSseReadsARecordWithRawLineBreaksAsOneEvent() throws Exception {
        String topic = kafka.createTopic(1);
        String token = TestAuthenticator.token("pia", topic + "/*", "");
        try (BridgeFixture a = BridgeFixture.start(cluster.getBootstrapServers(), "node-a", "topics: " + topic)) {
            kafka.send(topic, "k", SseStreamTest.MULTILINE);
            kafka.send(topic, "k", "{\"n\":8}");
            Map<String, Long> fromTheStart = new java.util.LinkedHashMap<>();
            try (SseClient probe = SseClient.open(a.port(), "endpoint=/" + topic + "/*", token, null)) {
                probe.expect("connected");
                probe.expect("subscribed").json().get("positions").forEach(p -> fromTheStart.put(p.get("epoch").asText(), -1L));
            }
            JsonNode run = PythonClients.run("sse_resume.py", TIMEOUT, Map.of("TOKEN", token, "LAST_EVENT_ID",
                    EventIds.encode(List.of(fromTheStart))), "--url", "http://127.0.0.1:" + a.port() + "/ws/sse?endpoint=/" + topic + "/*",
                    "--count", "2").ok();
            assertThat(run.get("messages").get(0).get(2).asInt()).isEqualTo(7);
            assertThat(run.get("messages").get(1).get(2).asInt()).isEqualTo(8);
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
}
