package io.sluice.bridge.server;

import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

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
        return bridge(topic, node, "topics: " + topic);
    }

    private BridgeFixture bridge(String topic, String node, String sections) {
        return BridgeFixture.start(cluster.getBootstrapServers(), node, "", BridgeFixture.jwtAuth(jwks.url(), TestIssuer.ISSUER, TestIssuer.AUDIENCE, "30s"), sections);
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

    /**
     * Amounts a double cannot hold (docs/bridge-filters.md, "Semantics"): {@code 1000.0000000000000001} is above 1000,
     * {@code 1e400} and {@code -1e400} are finite. Live, in recovery from the node's cache (where all but an
     * endpoint's latest message are read back from their frames) and in recovery from the Kafka log, one row filter
     * selects exactly the same records, for a topic read as {@code json} and for one without a format.
     */
    @ParameterizedTest(name = "format {0}")
    @ValueSource(strings = {"json", "none"})
    void liveAndRecoveredRecordsPassTheRowFilterAlikeHoweverExactTheirNumbers(String format) throws Exception {
        String topic = kafka.createTopic(1);
        String sections = "topics: " + topic + "\n"
                + ("json".equals(format) ? "formats:\n  - topics: " + topic + "\n    value: {type: json}\n" : "");
        List<String> amounts = List.of("5", "1000", "1000.0000000000000001", "999.9999999999999999", "1e400", "-1e400",
                "1001", "1000.0", "1E+3", "-1E-400");
        Set<String> atMost1000 = Set.of("5", "1000", "999.9999999999999999", "-1e400", "1000.0", "1E+3", "-1E-400", "1");
        Map<String, Object> le = Map.of("le", List.of("/value/amount", 1000));
        Map<String, Object> notGt = Map.of("not", Map.of("gt", List.of("/value/amount", 1000)));
        try (BridgeFixture a = bridge(topic, "node-exact-a", sections);
             BridgeFixture b = bridge(topic, "node-exact-b", sections + "recovery:\n  cacheMessagesPerEndpoint: 1\n")) {
            for (Map<String, Object> filter : List.of(le, notGt)) {
                String token = token(topic, filter);
                try (WsClient live = WsClient.connected(a.port(), token)) {
                    JsonNode position = live.subscribe("/" + topic + "/k").get("positions").get(0);
                    Map<Long, String> bySeq = new HashMap<>();
                    for (String amount : amounts) {
                        bySeq.put(kafka.send(topic, "k", "{\"amount\":" + amount + "}"), amount);
                    }
                    long last = kafka.send(topic, "k", "{\"amount\":1}");
                    bySeq.put(last, "1");
                    Set<Long> expected = new TreeSet<>();
                    bySeq.forEach((seq, amount) -> {
                        if (atMost1000.contains(amount)) {
                            expected.add(seq);
                        }
                    });

                    assertThat(seqsUpTo(live, last)).as("live, filter %s", filter).isEqualTo(expected);
                    awaitRead(b, last + 1);
                    for (BridgeFixture node : List.of(a, b)) {
                        try (WsClient back = WsClient.connected(node.port(), token)) {
                            back.subscribe("/" + topic + "/k", m -> m.putArray("recover").addObject()
                                    .put("epoch", position.get("epoch").asText()).put("seq", position.get("seq").asLong()));
                            assertThat(seqsUpTo(back, last)).as("recovered on %s, filter %s", node == a ? "a (cache)" : "b (log)", filter)
                                    .isEqualTo(expected);
                        }
                    }
                }
            }
            assertThat(a.metric("sluice_bridge_recovery_requests_total", "source=\"cache\"")).isEqualTo(2);
            assertThat(b.metric("sluice_bridge_recovery_requests_total", "source=\"kafka\"")).isEqualTo(2);
        }
    }

    /** The seqs of the messages the client receives up to and including {@code last}. */
    private static Set<Long> seqsUpTo(WsClient client, long last) {
        Set<Long> seqs = new TreeSet<>();
        long seq;
        do {
            seq = client.messages(1).get(0).get("seq").asLong();
            seqs.add(seq);
        } while (seq < last);
        return seqs;
    }

    private static void awaitRead(BridgeFixture node, long records) {
        org.awaitility.Awaitility.await().atMost(Duration.ofSeconds(30))
                .until(() -> node.metric("sluice_bridge_kafka_records_total", "") >= records);
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
