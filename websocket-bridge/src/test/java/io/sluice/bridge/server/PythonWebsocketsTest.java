package io.sluice.bridge.server;

import java.time.Duration;
import java.util.ArrayList;
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
import io.sluice.testkit.fixtures.PythonClients;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The bridge's hardening (issue 11) judged by a client the team did not write: Python's {@code websockets}, running
 * {@code src/test/python/ws_hostile.py} against a real node and real Kafka (records from "other producers" are written
 * by librdkafka). Message forgery, the Origin policy, a subscribe flood and half-open connections.
 */
@ExtendWith(KafkaClusterExtension.class)
class PythonWebsocketsTest {

    private static final String FORGED = "{\"a\":1},\"endpoint\":\"/chat/admin\",\"type\":\"message\",\"seq\":999999999";
    private static final Duration TIMEOUT = Duration.ofSeconds(90);

    @BrokerCluster(numBrokers = 1)
    static KafkaCluster cluster;

    @RegisterExtension
    static final KafkaHelper kafka = KafkaHelper.perClass(() -> cluster.getBootstrapServers());

    /** @param connections the {@code connections} section's fields, or "" for its defaults */
    private static BridgeFixture bridge(String topic, String connections) {
        String section = connections.isEmpty() ? "" : "connections:\n" + connections.stripIndent().indent(2);
        return BridgeFixture.start(cluster.getBootstrapServers(), "node-py", "", "topics: " + topic + "\n" + section);
    }

    private static JsonNode wsHostile(BridgeFixture bridge, Map<String, String> env, String action, String... args) {
        List<String> all = new ArrayList<>(List.of(action, "--url", "ws://127.0.0.1:" + bridge.port() + "/ws"));
        all.addAll(List.of(args));
        return PythonClients.run("ws_hostile.py", TIMEOUT, env, all.toArray(String[]::new)).ok();
    }

    private static List<String> each(JsonNode array, String field) {
        List<String> values = new ArrayList<>();
        array.forEach(n -> values.add(n.get(field).asText()));
        return values;
    }

    @Test
    void aPublishedOrProducedValueThatIsNotOneJsonValueArrivesAsTextInAFrameWithOneOfEachKey() throws Exception {
        String topic = kafka.createTopic(1);
        try (BridgeFixture bridge = bridge(topic, "")) {
            JsonNode result = wsHostile(bridge, Map.of(
                            "VICTIM_TOKEN", TestAuthenticator.token("victim", topic + "/*", ""),
                            "ATTACKER_TOKEN", TestAuthenticator.token("mallory", topic + "/*", topic + "/*")),
                    "forgery", "--topic", topic, "--bootstrap", cluster.getBootstrapServers());

            // Parsed strictly by Python's json: a frame with a key twice would be here instead.
            assertThat(result.get("unparseable")).isEmpty();
            JsonNode received = result.get("received");
            assertThat(each(received, "type")).containsExactly("message", "message", "message", "message", "message");
            assertThat(each(received, "endpoint")).containsOnly("/" + topic + "/room");
            assertThat(received.get(0).get("seq").asLong()).isEqualTo(result.get("ackSeq").asLong());
            List<Long> seqs = new ArrayList<>();
            received.forEach(m -> seqs.add(m.get("seq").asLong()));
            assertThat(seqs).isSorted().doesNotHaveDuplicates().allMatch(seq -> seq < 1000);
            assertThat(each(received, "format")).containsExactly("text", "text", "text", "text", "json");
            assertThat(each(received, "payload").subList(0, 4)).containsExactly(FORGED, FORGED, "{\"a\":1,\"a\":2}", "[1] [2]");
            assertThat(received.get(4).get("payload").get("a").get(1).has("b")).isTrue();
        }
    }

    @Test
    void anUpgradeFromAnOriginNotAllowedIsRefusedWith403() throws Exception {
        String topic = kafka.createTopic(1);
        try (BridgeFixture bridge = bridge(topic, "allowedOrigins: [\"https://app.example\"]")) {
            JsonNode outcomes = wsHostile(bridge, Map.of("TOKEN", TestAuthenticator.token("ivy", topic + "/*", "")),
                    "origin", "--origin", "https://evil.example", "--origin", "https://app.example").get("outcomes");

            assertThat(outcomes.get("https://evil.example").get("status").asInt()).isEqualTo(403);
            assertThat(outcomes.get("https://app.example").get("connected").asBoolean()).isTrue();
            assertThat(bridge.metric("sluice_bridge_connections_refused_total", "reason=\"origin\"")).isEqualTo(1);
        }
    }

    @Test
    void aSubscribeFloodIsRateLimitedAndWaitingAsAdvisedSubscribesAgain() throws Exception {
        String topic = kafka.createTopic(1);
        try (BridgeFixture bridge = bridge(topic, "")) {
            JsonNode result = wsHostile(bridge, Map.of("TOKEN", TestAuthenticator.token("mallory", topic + "/*", "")),
                    "flood", "--topic", topic, "--pairs", "400");

            int subscribed = result.get("replies").path("subscribed").asInt();
            int rateLimited = result.get("errors").path("rate_limited").asInt();
            // The default bucket: 200 at once, then 50 a second.
            assertThat(subscribed).isGreaterThanOrEqualTo(200).isLessThanOrEqualTo(200 + (int) Math.ceil(result.get("seconds").asDouble() * 50) + 1);
            assertThat(rateLimited).isEqualTo(400 - subscribed);
            assertThat(result.get("retryAfterMs").asLong()).isBetween(1L, 20L);
            assertThat(result.get("afterWaiting").asText()).isEqualTo("subscribed");
            assertThat(result.get("attempts").asInt()).as("rounds of waiting as advised").isBetween(1, 3);
            // Every refusal is counted: the flood's, and those of the waiting rounds before the one that was served.
            int refusedWhileWaiting = result.get("attempts").asInt() - 1;
            assertThat(bridge.metric("sluice_bridge_requests_refused_total", "reason=\"subscribe_rate\""))
                    .isEqualTo(rateLimited + refusedWhileWaiting);
            assertThat(result.get("unparseable")).isEmpty();
        }
    }

    @Test
    void connectionsThatNeverUpgradeAreClosedAtTheHandshakeTimeoutWhileAnUpgradedOneIsServed() throws Exception {
        String topic = kafka.createTopic(1);
        try (BridgeFixture bridge = bridge(topic, "handshakeTimeout: 2s")) {
            JsonNode result = wsHostile(bridge, Map.of("TOKEN", TestAuthenticator.token("ivy", topic + "/*", "")),
                    "half-open", "--topic", topic);

            assertThat(result.get("silentClosedAfterMs").isNull()).as("the silent connection was left open").isFalse();
            assertThat(result.get("partialClosedAfterMs").isNull()).as("the partial upgrade was left open").isFalse();
            assertThat(result.get("silentClosedAfterMs").asLong()).isBetween(1_800L, 6_000L);
            assertThat(result.get("partialClosedAfterMs").asLong()).isBetween(1_800L, 6_000L);
            assertThat(result.get("upgradedReply").asText()).isEqualTo("subscribed");
            assertThat(bridge.metric("sluice_bridge_handshake_timeouts_total", "")).isEqualTo(2);
        }
    }
}
