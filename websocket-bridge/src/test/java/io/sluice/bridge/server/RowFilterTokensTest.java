package io.sluice.bridge.server;

import java.time.Duration;
import java.util.List;
import java.util.Map;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.extension.RegisterExtension;

import io.kroxylicious.testing.kafka.api.KafkaCluster;
import io.kroxylicious.testing.kafka.common.BrokerCluster;
import io.kroxylicious.testing.kafka.junit5ext.KafkaClusterExtension;
import io.sluice.auth.testing.JwksServer;
import io.sluice.auth.testing.TestIssuer;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Row filters carried by real JWTs (docs/bridge-filters.md#filters-in-tokens-row-level-permission): ANDed into every
 * subscription on the topic, whatever the client asks, live and in recovery; a token whose filter is invalid is
 * refused at connect.
 */
@ExtendWith(KafkaClusterExtension.class)
class RowFilterTokensTest {

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final TestIssuer ISSUER = TestIssuer.rsa();

    @BrokerCluster(numBrokers = 1)
    static KafkaCluster cluster;

    @RegisterExtension
    static final KafkaHelper kafka = KafkaHelper.perClass(() -> cluster.getBootstrapServers());
    static JwksServer jwks;

    @BeforeAll
    static void start() throws Exception {
        jwks = new JwksServer(ISSUER.jwks());
    }

    @AfterAll
    static void stop() {
        jwks.close();
    }

    private BridgeFixture bridge(String topic, String node) {
        return BridgeFixture.start(cluster.getBootstrapServers(), node, "", BridgeFixture.jwtAuth(jwks.url(), TestIssuer.ISSUER, TestIssuer.AUDIENCE, "30s"), "topics: " + topic);
    }

    private static String token(String topic, Object filter) {
        return ISSUER.token("branch-17", Duration.ofMinutes(5), Map.of(
                "topics", Map.of(topic, List.of("read")),
                "filters", Map.of(topic, filter)));
    }

    @Test
    void theTokensFilterIsAndedIntoEverySubscriptionLiveAndInRecovery() throws Exception {
        String topic = kafka.createTopic(1);
        Map<String, Object> ownBranch = Map.of("eq", List.of("/value/branch", 17));
        try (BridgeFixture bridge = bridge(topic, "node-row-filters")) {
            JsonNode position;
            try (WsClient plain = WsClient.connected(bridge.port(), token(topic, ownBranch));
                 WsClient large = WsClient.connected(bridge.port(), token(topic, ownBranch));
                 WsClient widening = WsClient.connected(bridge.port(), token(topic, ownBranch))) {
                position = plain.subscribe("/" + topic + "/*").get("positions").get(0);
                large.subscribe("/" + topic + "/*", m -> m.set("filter", json("{\"gt\": [\"/value/amount\", 10]}")));
                // A client cannot widen its rows: its own filter only narrows further.
                widening.subscribe("/" + topic + "/*", m -> m.set("filter", json("{\"any\": [{\"exists\": \"/value\"}, {\"not\": {\"exists\": \"/value\"}}]}")));

                long small17 = kafka.send(topic, "o1", "{\"branch\":17,\"amount\":5}");
                kafka.send(topic, "o2", "{\"branch\":18,\"amount\":500}");
                long large17 = kafka.send(topic, "o3", "{\"branch\":17,\"amount\":50}");
                kafka.send(topic, "o4", "not json");

                assertThat(plain.messages(2)).extracting(m -> m.get("seq").asLong()).containsExactly(small17, large17);
                assertThat(large.messages(1)).extracting(m -> m.get("seq").asLong()).containsExactly(large17);
                assertThat(widening.messages(2)).extracting(m -> m.get("seq").asLong()).containsExactly(small17, large17);
                kafka.send(topic, "o5", "{\"branch\":17,\"amount\":1}");
                plain.messages(1);
                assertThat(large.drainNow()).isEmpty();
            }
            // Recovering from before everything: the same rows, from the cache.
            try (WsClient back = WsClient.connected(bridge.port(), token(topic, ownBranch))) {
                back.subscribe("/" + topic + "/*", m -> m.putArray("recover").addObject()
                        .put("epoch", position.get("epoch").asText()).put("seq", position.get("seq").asLong()));
                assertThat(back.messages(3)).extracting(m -> m.get("payload").get("branch").asInt()).containsOnly(17);
                assertThat(back.drainNow()).isEmpty();
            }
        }
    }

    @Test
    void aTokenWithAnInvalidRowFilterIsRefusedAtConnect() throws Exception {
        String topic = kafka.createTopic(1);
        try (BridgeFixture bridge = bridge(topic, "node-bad-row-filter");
             WsClient client = WsClient.connect(bridge.port())) {
            client.request("connect", m -> m.put("token", token(topic, Map.of("eq", List.of("branch", 17)))));
            assertThat(client.awaitClose()).isEqualTo(4001);
            assertThat(client.closeReason()).contains("sluice.filters").contains("not a JSON Pointer");
        }
    }

    private static JsonNode json(String text) {
        try {
            return JSON.readTree(text);
        }
        catch (Exception e) {
            throw new IllegalArgumentException(e);
        }
    }
}
