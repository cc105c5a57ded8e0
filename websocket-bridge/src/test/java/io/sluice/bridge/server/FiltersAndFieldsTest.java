package io.sluice.bridge.server;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.extension.RegisterExtension;

import io.kroxylicious.testing.kafka.api.KafkaCluster;
import io.kroxylicious.testing.kafka.common.BrokerCluster;
import io.kroxylicious.testing.kafka.junit5ext.KafkaClusterExtension;
import io.sluice.bridge.auth.TestAuthenticator;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Subscriptions with a {@code filter} and {@code fields} (docs/bridge-filters.md) against a real bridge and Kafka: what
 * each client receives live, once per group of equal selections, as projected deltas, and in recovery from the cache
 * and from the Kafka log; and the refusals.
 */
@ExtendWith(KafkaClusterExtension.class)
class FiltersAndFieldsTest {

    private static final ObjectMapper JSON = new ObjectMapper();

    @BrokerCluster(numBrokers = 1)
    static KafkaCluster cluster;

    @RegisterExtension
    static final KafkaHelper kafka = KafkaHelper.perClass(() -> cluster.getBootstrapServers());

    private static String token(String topic) {
        return TestAuthenticator.token("fay", topic + "/*", "");
    }

    private static JsonNode json(String text) {
        try {
            return JSON.readTree(text);
        }
        catch (Exception e) {
            throw new IllegalArgumentException(e);
        }
    }

    private static List<Long> seqs(List<JsonNode> messages) {
        List<Long> seqs = new ArrayList<>();
        messages.forEach(m -> seqs.add(m.get("seq").asLong()));
        return seqs;
    }

    @Test
    void eachClientReceivesWhatItsFilterSelectsAndOnlyTheFieldsItListed() throws Exception {
        String topic = kafka.createTopic(1);
        try (BridgeFixture bridge = BridgeFixture.start(cluster.getBootstrapServers(), "node-filters", "topics: " + topic);
             WsClient expensive = WsClient.connected(bridge.port(), token(topic));
             WsClient narrow = WsClient.connected(bridge.port(), token(topic));
             WsClient europe = WsClient.connected(bridge.port(), token(topic));
             WsClient everything = WsClient.connected(bridge.port(), token(topic))) {
            expensive.subscribe("/" + topic + "/*", m -> m.set("filter", json("{\"gt\": [\"/value/price\", 10]}")));
            narrow.subscribe("/" + topic + "/*", m -> m.set("fields", json("[\"/sym\", \"/quote/bid\"]")));
            europe.subscribe("/" + topic + "/*", m -> m.set("filter",
                    json("{\"all\": [{\"eq\": [\"/headers/region\", \"eu\"]}, {\"prefix\": [\"/key\", \"fx/\"]}]}")));
            everything.subscribe("/" + topic + "/*");

            long cheap = kafka.send(topic, "fx/eur", "{\"sym\":\"EUR\",\"price\":1.1,\"quote\":{\"bid\":1.0,\"ask\":1.2}}", Map.of("region", "eu"));
            long dear = kafka.send(topic, "eq/acme", "{\"sym\":\"ACME\",\"price\":120,\"quote\":{\"bid\":119,\"ask\":121}}", Map.of("region", "us"));
            long text = kafka.send(topic, "fx/gbp", "not json", Map.of("region", "eu"));
            long tombstone = kafka.send(topic, "fx/eur", (byte[]) null);

            assertThat(seqs(everything.messages(4))).containsExactly(cheap, dear, text, tombstone);
            // The tombstone's /value is null: no comparison matches it.
            assertThat(seqs(expensive.messages(1))).containsExactly(dear);
            List<JsonNode> projected = narrow.messages(4);
            assertThat(projected.get(0).get("payload")).isEqualTo(json("{\"sym\":\"EUR\",\"quote\":{\"bid\":1.0}}"));
            assertThat(projected.get(1).get("payload")).isEqualTo(json("{\"sym\":\"ACME\",\"quote\":{\"bid\":119}}"));
            assertThat(projected.get(0).get("format").asText()).isEqualTo("json");
            assertThat(projected.get(2).get("payload")).as("a value that is not an object projects to {}").isEqualTo(json("{}"));
            assertThat(projected.get(3).get("format").asText()).as("tombstones stay tombstones").isEqualTo("none");
            assertThat(seqs(europe.messages(2))).containsExactly(cheap, text);

            kafka.send(topic, "eq/last", "{\"price\":1}");
            everything.messages(1);
            narrow.messages(1);
            assertThat(expensive.drainNow()).isEmpty();
            assertThat(europe.drainNow()).isEmpty();
        }
    }

    @Test
    void subscribersSharingASelectionCostOneSelectionPerMessage() throws Exception {
        String topic = kafka.createTopic(1);
        try (BridgeFixture bridge = BridgeFixture.start(cluster.getBootstrapServers(), "node-groups", "topics: " + topic)) {
            List<WsClient> clients = new ArrayList<>();
            try {
                for (int i = 0; i < 6; i++) {
                    WsClient client = WsClient.connected(bridge.port(), token(topic));
                    clients.add(client);
                    // The same selection written three ways: member order and 100 vs 100.0 do not make new groups.
                    String filter = switch (i % 3) {
                        case 0 -> "{\"ge\": [\"/value/n\", 100]}";
                        case 1 -> "{\"ge\": [\"/value/n\", 100.0]}";
                        default -> "{\"ge\":[\"/value/n\",1e2]}";
                    };
                    String fields = i % 2 == 0 ? "[\"/n\", \"/s\"]" : "[\"/s\", \"/n\"]";
                    client.subscribe("/" + topic + "/*", m -> {
                        m.set("filter", json(filter));
                        m.set("fields", json(fields));
                    });
                }
                assertThat(bridge.metric("sluice_bridge_groups", "")).isEqualTo(1);
                for (int n = 95; n < 105; n++) {
                    kafka.send(topic, "k", "{\"n\":" + n + ",\"s\":\"x\",\"big\":\"" + "y".repeat(100) + "\"}");
                }
                for (WsClient client : clients) {
                    List<JsonNode> got = client.messages(5);
                    assertThat(got).extracting(m -> m.get("payload").get("n").asInt()).containsExactly(100, 101, 102, 103, 104);
                    assertThat(got.get(0).get("payload")).isEqualTo(json("{\"n\":100,\"s\":\"x\"}"));
                }
                // Ten records through one group: ten selections, not sixty.
                await().until(() -> bridge.metric("sluice_bridge_group_selections_total", "") == 10);
            }
            finally {
                clients.forEach(WsClient::close);
            }
            await().until(() -> bridge.metric("sluice_bridge_groups", "") == 0);
        }
    }

    @Test
    void projectedDeltasCarryOnlyTheListedFieldsThatChanged() throws Exception {
        String topic = kafka.createTopic(1);
        try (BridgeFixture bridge = BridgeFixture.start(cluster.getBootstrapServers(), "node-field-deltas", "topics: " + topic);
             WsClient client = WsClient.connected(bridge.port(), token(topic))) {
            client.subscribe("/" + topic + "/quote", m -> {
                m.put("delta", true);
                m.set("fields", json("[\"/bid\", \"/ask\"]"));
            });
            kafka.send(topic, "quote", "{\"bid\":1,\"ask\":2,\"volume\":10,\"venue\":\"X\"}");
            kafka.send(topic, "quote", "{\"bid\":1,\"ask\":3,\"volume\":11,\"venue\":\"Y\"}");
            kafka.send(topic, "quote", "{\"bid\":1,\"ask\":3,\"volume\":12,\"venue\":\"Z\"}");
            List<JsonNode> got = client.messages(3);
            assertThat(got.get(0).get("type").asText()).isEqualTo("message");
            assertThat(got.get(0).get("payload")).isEqualTo(json("{\"ask\":2,\"bid\":1}"));
            assertThat(got.get(1).get("type").asText()).isEqualTo("delta");
            assertThat(got.get(1).get("base").asLong()).isEqualTo(got.get(0).get("seq").asLong());
            assertThat(got.get(1).get("patch")).isEqualTo(json("[{\"op\":\"replace\",\"path\":\"/ask\",\"value\":3}]"));
            // Only fields outside the list changed: an empty patch, still in order.
            assertThat(got.get(2).get("type").asText()).isEqualTo("delta");
            assertThat(got.get(2).get("patch")).isEqualTo(json("[]"));
        }
    }

    @Test
    void recoveryFromTheCacheAndFromTheKafkaLogAppliesTheSameSelection() throws Exception {
        String topic = kafka.createTopic(1);
        String filter = "{\"eq\": [\"/value/kind\", \"trade\"]}";
        // Cache of two messages per endpoint: recovering from before them reads the Kafka log.
        try (BridgeFixture bridge = BridgeFixture.start(cluster.getBootstrapServers(), "node-filtered-recovery",
                "topics: " + topic + "\nrecovery:\n  cacheMessagesPerEndpoint: 2\n")) {
            JsonNode position;
            try (WsClient first = WsClient.connected(bridge.port(), token(topic))) {
                position = first.subscribe("/" + topic + "/k", m -> m.set("filter", json(filter))).get("positions").get(0);
            }
            List<Long> trades = new ArrayList<>();
            for (int i = 0; i < 6; i++) {
                String kind = i % 2 == 0 ? "trade" : "quote";
                long offset = kafka.send(topic, "k", "{\"kind\":\"" + kind + "\",\"i\":" + i + ",\"noise\":true}");
                if (kind.equals("trade")) {
                    trades.add(offset);
                }
            }
            await().until(() -> bridge.metric("sluice_bridge_kafka_records_total", "") >= 6);
            // From the Kafka log (the cache holds only the last two).
            try (WsClient back = WsClient.connected(bridge.port(), token(topic))) {
                back.subscribe("/" + topic + "/k", m -> {
                    m.set("filter", json(filter));
                    m.set("fields", json("[\"/i\"]"));
                    m.putArray("recover").addObject().put("epoch", position.get("epoch").asText()).put("seq", position.get("seq").asLong());
                });
                List<JsonNode> recovered = back.messages(3);
                assertThat(seqs(recovered)).isEqualTo(trades);
                assertThat(recovered).extracting(m -> m.get("payload")).containsExactly(json("{\"i\":0}"), json("{\"i\":2}"), json("{\"i\":4}"));
                assertThat(back.drainNow()).isEmpty();
            }
            assertThat(bridge.metric("sluice_bridge_recovery_requests_total", "source=\"kafka\"")).isEqualTo(1);
            // From the cache: the last two records, one of which is a trade.
            try (WsClient cached = WsClient.connected(bridge.port(), token(topic))) {
                cached.subscribe("/" + topic + "/k", m -> {
                    m.set("filter", json(filter));
                    // Seen up to the quote after the second trade: the rest (offsets 4, 5) is in the cache.
                    m.putArray("recover").addObject().put("epoch", position.get("epoch").asText()).put("seq", trades.get(1) + 1);
                });
                List<JsonNode> recovered = cached.messages(1);
                assertThat(seqs(recovered)).containsExactly(trades.get(2));
                assertThat(recovered.get(0).get("payload").get("noise").asBoolean()).isTrue();
            }
            assertThat(bridge.metric("sluice_bridge_recovery_requests_total", "source=\"cache\"")).isEqualTo(1);
        }
    }

    @Test
    void badFiltersAndOneGroupTooManyAreRefusedWithTheirCodesAndSubscribeNothing() throws Exception {
        String topic = kafka.createTopic(1);
        try (BridgeFixture bridge = BridgeFixture.start(cluster.getBootstrapServers(), "node-filter-refusals",
                "topics: " + topic + "\nfilters:\n  maxGroupsPerEndpoint: 2\n  maxInList: 3\n");
             WsClient client = WsClient.connected(bridge.port(), token(topic))) {
            String endpoint = "/" + topic + "/*";
            client.request("subscribe", m -> m.put("endpoint", endpoint).set("filter", json("{\"eq\": [\"price\", 1]}")));
            JsonNode invalid = client.expect("error");
            assertThat(invalid.get("code").asText()).isEqualTo("invalid_filter");
            assertThat(invalid.get("message").asText()).contains("filter.eq[0]");
            client.request("subscribe", m -> m.put("endpoint", endpoint).set("filter", json("{\"in\": [\"/value/a\", [1, 2, 3, 4]]}")));
            assertThat(client.expect("error").get("code").asText()).isEqualTo("filter_too_large");
            client.request("subscribe", m -> m.put("endpoint", endpoint).set("fields", json("\"/a\"")));
            assertThat(client.expect("error").get("code").asText()).isEqualTo("invalid_filter");

            try (WsClient a = WsClient.connected(bridge.port(), token(topic));
                 WsClient b = WsClient.connected(bridge.port(), token(topic));
                 WsClient sameAsA = WsClient.connected(bridge.port(), token(topic))) {
                a.subscribe(endpoint, m -> m.set("filter", json("{\"exists\": \"/value/a\"}")));
                b.subscribe(endpoint, m -> m.set("filter", json("{\"exists\": \"/value/b\"}")));
                sameAsA.subscribe(endpoint, m -> m.set("filter", json("{\"exists\": \"/value/a\"}")));
                client.request("subscribe", m -> m.put("endpoint", endpoint).set("filter", json("{\"exists\": \"/value/c\"}")));
                JsonNode tooMany = client.expect("error");
                assertThat(tooMany.get("code").asText()).isEqualTo("too_many_groups");
                // Refused: nothing subscribed, so the same endpoint can be subscribed without a filter.
                client.subscribe(endpoint);
                kafka.send(topic, "k", "{\"c\":1}");
                assertThat(client.messages(1).get(0).get("payload")).isEqualTo(json("{\"c\":1}"));
                assertThat(bridge.metric("sluice_bridge_groups", "")).isEqualTo(2);
            }
        }
    }

    @Test
    void aConnectionWithOverlappingSubscriptionsGetsAMessageThroughTheFirstThatSelectsIt() throws Exception {
        String topic = kafka.createTopic(1);
        try (BridgeFixture bridge = BridgeFixture.start(cluster.getBootstrapServers(), "node-overlap", "topics: " + topic);
             WsClient client = WsClient.connected(bridge.port(), token(topic))) {
            client.subscribe("/" + topic + "/a", m -> m.set("filter", json("{\"eq\": [\"/value/n\", 1]}")));
            client.subscribe("/" + topic + "/*", m -> m.set("fields", json("[\"/n\"]")));
            kafka.send(topic, "a", "{\"n\":1,\"x\":true}");
            kafka.send(topic, "a", "{\"n\":2,\"x\":true}");
            List<JsonNode> got = client.messages(2);
            // The exact subscription selects the first (whole); it refuses the second, which the prefix then takes (projected).
            assertThat(got.get(0).get("payload")).isEqualTo(json("{\"n\":1,\"x\":true}"));
            assertThat(got.get(1).get("payload")).isEqualTo(json("{\"n\":2}"));
            assertThat(client.drainNow()).isEmpty();
        }
    }
}
