package io.sluice.bridge.server;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import com.fasterxml.jackson.databind.JsonNode;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.extension.RegisterExtension;

import io.kroxylicious.testing.kafka.api.KafkaCluster;
import io.kroxylicious.testing.kafka.common.BrokerCluster;
import io.kroxylicious.testing.kafka.junit5ext.KafkaClusterExtension;
import io.sluice.bridge.auth.TestAuthenticator;
import io.sluice.bridge.protocol.CloseCodes;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * A client that stops reading never holds anyone up: it is conflated past the high-water mark (and told so), closed
 * with 4008 past the hard limit, while a fast client on the same node receives every message in order. Kernel socket
 * buffers are made small on both sides so the bridge's own limits are reached with little data.
 */
@ExtendWith(KafkaClusterExtension.class)
class SlowClientTest {

    @BrokerCluster(numBrokers = 1)
    static KafkaCluster cluster;

    @RegisterExtension
    static final KafkaHelper kafka = KafkaHelper.perClass(() -> cluster.getBootstrapServers());

    private static final String PAD = "x".repeat(2000);

    private static BridgeFixture bridge(String topic) {
        return BridgeFixture.start(cluster.getBootstrapServers(), "node-a", "socketSendBufferBytes: 8192", """
                topics: %s
                outbound:
                  highWaterMarkBytes: 32768
                  lowWaterMarkBytes: 16384
                  maxBytes: 262144
                """.formatted(topic));
    }

    private static WsClient slowClient(BridgeFixture bridge, String token, String endpoint) {
        WsClient slow = WsClient.connect(bridge.port(), 4096);
        slow.request("connect", m -> m.put("token", token));
        slow.expect("connected");
        slow.subscribe(endpoint);
        slow.pauseReading();
        return slow;
    }

    @Test
    void slowClientIsConflatedToTheLatestPerEndpointAndToldSoWhileAFastClientGetsEverything() throws Exception {
        String topic = kafka.createTopic(1);
        String token = TestAuthenticator.token("fay", topic + "/*", "");
        try (BridgeFixture bridge = bridge(topic);
             WsClient fast = WsClient.connected(bridge.port(), token);
             WsClient slow = slowClient(bridge, token, "/" + topic + "/*")) {
            fast.subscribe("/" + topic + "/*");
            Map<String, List<Long>> sent = new LinkedHashMap<>();
            for (int i = 0; i < 300; i++) {
                String key = i % 2 == 0 ? "a" : "b";
                sent.computeIfAbsent("/" + topic + "/" + key, k -> new ArrayList<>())
                        .add(kafka.send(topic, key, "{\"n\": " + i + ", \"pad\": \"" + PAD + "\"}"));
            }

            Map<String, List<Long>> fastGot = new LinkedHashMap<>();
            fast.messages(300).forEach(m -> fastGot.computeIfAbsent(m.get("endpoint").asText(), k -> new ArrayList<>()).add(m.get("seq").asLong()));
            assertThat(fastGot).isEqualTo(sent);
            await().atMost(Duration.ofSeconds(30)).until(() -> bridge.metric("sluice_bridge_messages_conflated_total", "") > 0);
            assertThat(slow.isOpen()).isTrue();

            slow.resumeReading();
            Map<String, Long> last = new HashMap<>();
            long dropped = 0;
            int messages = 0;
            while (!last.keySet().equals(sent.keySet())
                    || !sent.keySet().stream().allMatch(e -> last.get(e).equals(sent.get(e).get(sent.get(e).size() - 1)))) {
                JsonNode m = slow.next();
                if (m.get("type").asText().equals("conflated")) {
                    dropped += m.get("dropped").asLong();
                    continue;
                }
                assertThat(m.get("type").asText()).isEqualTo("message");
                Long previous = last.put(m.get("endpoint").asText(), m.get("seq").asLong());
                assertThat(previous == null || previous < m.get("seq").asLong()).as("in order per endpoint").isTrue();
                messages++;
            }
            assertThat(dropped).isPositive();
            assertThat(messages + dropped).as("every message was delivered or reported dropped").isEqualTo(300);
            assertThat(slow.isOpen()).isTrue();
        }
    }

    @Test
    void slowClientPastTheHardLimitIsClosedWith4008AndAFastClientIsUnaffected() throws Exception {
        String topic = kafka.createTopic(1);
        String token = TestAuthenticator.token("gus", topic + "/*", "");
        try (BridgeFixture bridge = bridge(topic);
             WsClient fast = WsClient.connected(bridge.port(), token);
             WsClient slow = slowClient(bridge, token, "/" + topic + "/*")) {
            fast.subscribe("/" + topic + "/*");
            List<Long> sent = new ArrayList<>();
            // Every key different: conflation cannot help, so the kept bytes grow until the hard limit.
            for (int i = 0; i < 300; i++) {
                sent.add(kafka.send(topic, "key-" + i, "{\"n\": " + i + ", \"pad\": \"" + PAD + "\"}"));
            }
            assertThat(fast.messages(300)).extracting(m -> m.get("seq").asLong()).containsExactlyElementsOf(sent);
            await().atMost(Duration.ofSeconds(30)).until(() -> bridge.metric("sluice_bridge_slow_client_closes_total", "") == 1);

            slow.resumeReading();
            assertThat(slow.awaitClose()).isEqualTo(CloseCodes.SLOW_CLIENT);
            long live = kafka.send(topic, "after", "still serving");
            assertThat(fast.expect("message").get("seq").asLong()).isEqualTo(live);
        }
    }

    /**
     * Few endpoints: conflation keeps the stalled client far below maxBytes, so only outbound.maxSlowTime bounds how
     * long it holds its connection above the high-water mark.
     */
    @Test
    void aClientAboveTheHighWaterMarkForMaxSlowTimeIsClosedWith4008ThoughConflationKeepsItUnderMaxBytes() throws Exception {
        String topic = kafka.createTopic(1);
        String token = TestAuthenticator.token("hal", topic + "/*", "");
        try (BridgeFixture bridge = BridgeFixture.start(cluster.getBootstrapServers(), "node-a", "socketSendBufferBytes: 8192", """
                topics: %s
                outbound:
                  highWaterMarkBytes: 32768
                  lowWaterMarkBytes: 16384
                  maxBytes: 67108864
                  maxSlowTime: 3s
                """.formatted(topic));
             WsClient fast = WsClient.connected(bridge.port(), token);
             WsClient slow = slowClient(bridge, token, "/" + topic + "/*")) {
            fast.subscribe("/" + topic + "/*");

            List<Long> sent = new ArrayList<>();
            long started = System.nanoTime();
            for (int i = 0; i < 200; i++) {
                sent.add(kafka.send(topic, i % 2 == 0 ? "a" : "b", "{\"n\": " + i + ", \"pad\": \"" + PAD + "\"}"));
            }
            assertThat(fast.messages(200)).extracting(m -> m.get("seq").asLong()).containsExactlyElementsOf(sent);
            await().atMost(Duration.ofSeconds(30)).until(() -> bridge.metric("sluice_bridge_messages_conflated_total", "") > 0);

            await().atMost(Duration.ofSeconds(30))
                    .until(() -> bridge.metric("sluice_bridge_slow_client_closes_total", "reason=\"max_slow_time\"") == 1);
            assertThat(Duration.ofNanos(System.nanoTime() - started)).as("not before maxSlowTime").isGreaterThanOrEqualTo(Duration.ofSeconds(3));
            assertThat(bridge.metric("sluice_bridge_slow_client_closes_total", "reason=\"max_bytes\"")).isZero();

            slow.resumeReading();
            assertThat(slow.awaitClose()).isEqualTo(CloseCodes.SLOW_CLIENT);
            long live = kafka.send(topic, "after", "still serving");
            assertThat(fast.expect("message").get("seq").asLong()).isEqualTo(live);
        }
    }

    /**
     * outbound.slowCloseGrace: a client closed with 4008 that does not read its close frame within the grace has its
     * socket cut. The frame waits behind what was already in the socket's queue, so a client that resumes reading after
     * the grace reads up to the cut and finds no close frame; the test above, resuming at once (within the default
     * 10 s), reads 4008.
     */
    @Test
    void aSlowClientThatDoesNotReadItsCloseWithinSlowCloseGraceIsCut() throws Exception {
        String topic = kafka.createTopic(1);
        String token = TestAuthenticator.token("ida", topic + "/*", "");
        try (BridgeFixture bridge = BridgeFixture.start(cluster.getBootstrapServers(), "node-a", "socketSendBufferBytes: 8192", """
                topics: %s
                outbound:
                  highWaterMarkBytes: 32768
                  lowWaterMarkBytes: 16384
                  maxBytes: 262144
                  slowCloseGrace: 1s
                """.formatted(topic));
             WsClient slow = slowClient(bridge, token, "/" + topic + "/*")) {
            for (int i = 0; i < 300; i++) {
                kafka.send(topic, "key-" + i, "{\"n\": " + i + ", \"pad\": \"" + PAD + "\"}");
            }
            await().atMost(Duration.ofSeconds(30)).until(() -> bridge.metric("sluice_bridge_slow_client_closes_total", "reason=\"max_bytes\"") == 1);
            Thread.sleep(4_000);

            slow.resumeReading();
            assertThat(slow.awaitClose()).as("cut after the grace, its close frame unsent").isEqualTo(-1);
        }
    }
}
