package io.sluice.bridge.server;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
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
 * A client with a valid token that tries to forge messages for others, or to make the node do unbounded work through
 * its requests: every attempt is refused with a documented error, the connection keeps working, and other clients see
 * only genuine messages. Real Kafka, real WebSocket clients, the node configured from YAML.
 */
@ExtendWith(KafkaClusterExtension.class)
class HostileRequestsTest {

    private static final String FORGED = "{\"a\":1},\"endpoint\":\"/chat/admin\",\"type\":\"message\",\"seq\":999999999";

    @BrokerCluster(numBrokers = 1)
    static KafkaCluster cluster;

    @RegisterExtension
    static final KafkaHelper kafka = KafkaHelper.perClass(() -> cluster.getBootstrapServers());

    private static String everything(String topic) {
        return TestAuthenticator.token("mallory", topic + "/*", topic + "/*");
    }

    private static BridgeFixture bridge(String sections) {
        return BridgeFixture.start(cluster.getBootstrapServers(), "node-a", sections);
    }

    private static String frame(String type, long id, Consumer<ObjectNode> fields) {
        ObjectNode m = WsClient.JSON.createObjectNode().put("type", type).put("id", id);
        fields.accept(m);
        return m.toString();
    }

    /**
     * Before {@code connect} a client may send only a message that fits one (requests.maxTokenBytes plus the JSON
     * around it): a 256 KiB frame is refused on its header with 1009, and so is a 256 KiB message in 16 KiB fragments,
     * before the node buffers either. After {@code connect} the normal limit (server.maxInboundMessageBytes, 1 MiB)
     * holds, also for frames the client sent along with its connect.
     */
    @Test
    void beforeConnectOnlyAMessageThatFitsAConnectIsReadAndAfterItTheNormalSize() throws Exception {
        String topic = kafka.createTopic(1);
        String huge = frame("connect", 1, m -> m.put("token", "x".repeat(256 * 1024)));
        try (BridgeFixture bridge = bridge("topics: " + topic)) {
            try (WsClient oneFrame = WsClient.connect(bridge.port())) {
                oneFrame.sendWithoutWaiting(huge);
                assertThat(oneFrame.awaitClose()).isEqualTo(1009);
            }
            try (WsClient fragments = WsClient.connect(bridge.port())) {
                fragments.sendFragments(huge, 16 * 1024);
                assertThat(fragments.awaitClose()).isEqualTo(1009);
            }
            assertThat(bridge.metric("sluice_bridge_messages_too_large_total", "stage=\"before_connect\"")).isEqualTo(2);

            try (WsClient client = WsClient.connect(bridge.port())) {
                // Sent together: the subscribe reaches the node in the same read as the connect, before it is answered.
                client.sendTogether(List.of(frame("connect", 1, m -> m.put("token", everything(topic))),
                        frame("subscribe", 2, m -> m.put("endpoint", "/" + topic + "/early"))));
                Map<String, JsonNode> answers = client.expectEach("connected", "error");
                assertThat(answers.get("error").get("code").asText()).isEqualTo("not_connected");

                String payload = "p".repeat(200 * 1024);
                client.request("publish", m -> m.put("endpoint", "/" + topic + "/big").put("payload", payload));
                client.expect("ack");
                client.sendFragments(frame("publish", 4, m -> m.put("endpoint", "/" + topic + "/big").put("payload", payload)), 16 * 1024);
                assertThat(client.expect("ack").get("id").asLong()).isEqualTo(4);
            }
            assertThat(bridge.metric("sluice_bridge_messages_too_large_total", "")).isEqualTo(2);
        }
    }

    @Test
    void aValueThatIsNotExactlyOneJsonValueCannotAddFieldsToTheMessageAroundIt() throws Exception {
        String topic = kafka.createTopic(1);
        try (BridgeFixture bridge = bridge("topics: " + topic);
             WsClient victim = WsClient.connected(bridge.port(), TestAuthenticator.token("victim", topic + "/*", ""));
             WsClient attacker = WsClient.connected(bridge.port(), everything(topic))) {
            victim.subscribe("/" + topic + "/*");
            attacker.request("publish", m -> m.put("endpoint", "/" + topic + "/room").put("payload", FORGED));
            long published = attacker.expect("ack").get("seq").asLong();
            // Other producers write to Kafka directly; their records take the same path.
            long produced = kafka.send(topic, "room", FORGED);
            long duplicateKeys = kafka.send(topic, "room", "{\"a\":1,\"a\":2}");
            long trailing = kafka.send(topic, "room", "[1] [2]");
            long genuine = kafka.send(topic, "room", " {\"a\": [1, {\"b\": null}]}\n");

            List<JsonNode> received = victim.messages(5);
            // WsClient parses strictly: a frame with a key twice arrives as type "unparseable" and fails messages().
            assertThat(received).extracting(m -> m.get("endpoint").asText()).containsOnly("/" + topic + "/room");
            assertThat(received).extracting(m -> m.get("seq").asLong()).containsExactly(published, produced, duplicateKeys, trailing, genuine);
            assertThat(received).extracting(m -> m.get("format").asText()).containsExactly("text", "text", "text", "text", "json");
            assertThat(received.get(0).get("payload").asText()).isEqualTo(FORGED);
            assertThat(received.get(1).get("payload").asText()).isEqualTo(FORGED);
            assertThat(received.get(2).get("payload").asText()).isEqualTo("{\"a\":1,\"a\":2}");
            assertThat(received.get(3).get("payload").asText()).isEqualTo("[1] [2]");
            assertThat(received.get(4).get("payload").get("a").get(1).has("b")).isTrue();
        }
    }

    @Test
    void recoverMayNameEachCoveredPartitionOnceAndNothingElse() throws Exception {
        String topic = kafka.createTopic(2);
        String other = kafka.createTopic(1);
        try (BridgeFixture bridge = bridge("topics: [" + topic + ", " + other + "]");
             WsClient client = WsClient.connected(bridge.port(), TestAuthenticator.token("mallory", topic + "/*," + other + "/*", ""))) {
            String otherEpoch = client.subscribe("/" + other + "/x").get("positions").get(0).get("epoch").asText();
            JsonNode positions = client.subscribe("/" + topic + "/*").get("positions");
            assertThat(positions).hasSize(2);
            client.request("unsubscribe", m -> m.put("endpoint", "/" + topic + "/*"));
            client.expect("unsubscribed");
            String epoch = positions.get(0).get("epoch").asText();

            Map<String, Consumer<ObjectNode>> refused = Map.of(
                    "the same epoch twice", m -> m.putArray("recover").add(position(epoch, 0)).add(position(epoch, 0)),
                    "another topic's partition", m -> m.putArray("recover").add(position(otherEpoch, 0)),
                    "more unknown epochs than partitions", m -> m.putArray("recover")
                            .add(position("gone-0", 1)).add(position("gone-1", 1)).add(position("gone-2", 1)),
                    "an epoch no server makes", m -> m.putArray("recover").add(position("e".repeat(65), 1)),
                    "a seq below -1", m -> m.putArray("recover").add(position(epoch, -2)));
            for (Map.Entry<String, Consumer<ObjectNode>> attempt : refused.entrySet()) {
                long id = client.request("subscribe", m -> {
                    m.put("endpoint", "/" + topic + "/*");
                    attempt.getValue().accept(m);
                });
                JsonNode error = client.expect("error");
                assertThat(error.get("code").asText()).as(attempt.getKey()).isEqualTo("malformed");
                assertThat(error.get("id").asLong()).isEqualTo(id);
            }

            // Within the bounds: both partitions, plus two stale epochs of a recreated topic, which become gaps.
            client.subscribe("/" + topic + "/*", m -> m.putArray("recover")
                    .add(position(positions.get(0).get("epoch").asText(), -1)).add(position(positions.get(1).get("epoch").asText(), -1))
                    .add(position("gone-0", 4)).add(position("gone-1", 4)));
            assertThat(List.of(client.expect("gap"), client.expect("gap"))).extracting(g -> g.get("reason").asText())
                    .containsOnly("unknown_epoch");
            long live = kafka.send(topic, "k", "live");
            assertThat(client.expect("message").get("seq").asLong()).isEqualTo(live);
        }
    }

    private static ObjectNode position(String epoch, long seq) {
        return WsClient.JSON.createObjectNode().put("epoch", epoch).put("seq", seq);
    }

    /** Keys with three records each, beyond the one-message cache: recovering any of them reads the Kafka log. */
    private static String recoveryFromTheLog(String topic, BridgeFixture bridge, WsClient client, List<String> keys) throws Exception {
        String epoch = client.subscribe("/" + topic + "/probe").get("positions").get(0).get("epoch").asText();
        for (int i = 0; i < 3; i++) {
            for (String key : keys) {
                kafka.send(topic, key, key + "-" + i);
            }
        }
        await().atMost(Duration.ofSeconds(30)).until(() -> bridge.metric("sluice_bridge_kafka_records_total", "") >= 3 * keys.size());
        return epoch;
    }

    private static String recoverFromStart(String topic, String key, String epoch, long id) {
        return frame("subscribe", id, m -> m.put("endpoint", "/" + topic + "/" + key).putArray("recover").add(position(epoch, -1)));
    }

    private static List<String> keys(int n) {
        return java.util.stream.IntStream.range(0, n).mapToObj(i -> "key" + i).toList();
    }

    @Test
    void aConnectionWithItsLogReadsInFlightIsToldBusyAndItsRetryRecoversEverything() throws Exception {
        String topic = kafka.createTopic(1);
        // The default recovery.kafkaReadsPerConnection, 16: the 17th recovery that needs the log waits for a retry.
        List<String> keys = keys(17);
        try (BridgeFixture bridge = bridge("topics: " + topic + "\nrecovery:\n  cacheMessagesPerEndpoint: 1\n");
             WsClient client = WsClient.connected(bridge.port(), everything(topic))) {
            String epoch = recoveryFromTheLog(topic, bridge, client, keys);
            assertBusyThenRecoveredOnRetry(client, topic, epoch, keys);
            assertThat(bridge.metric("sluice_bridge_requests_refused_total", "reason=\"recovery_connection_busy\"")).isGreaterThanOrEqualTo(1);
        }
    }

    @Test
    void aNodeWithItsLogReadsInFlightTellsTheNextSubscriberBusy() throws Exception {
        String topic = kafka.createTopic(1);
        String config = "topics: " + topic + "\nrecovery:\n  cacheMessagesPerEndpoint: 1\n  kafkaConcurrency: 1\n  kafkaQueue: 0\n";
        List<String> keys = keys(2);
        try (BridgeFixture bridge = bridge(config);
             WsClient client = WsClient.connected(bridge.port(), everything(topic))) {
            String epoch = recoveryFromTheLog(topic, bridge, client, keys);
            assertBusyThenRecoveredOnRetry(client, topic, epoch, keys);
            assertThat(bridge.metric("sluice_bridge_requests_refused_total", "reason=\"recovery_node_busy\"")).isGreaterThanOrEqualTo(1);
        }
    }

    /** Subscribes to every key at once: all but the last are admitted and recovered, the last is busy until a retry. */
    private static void assertBusyThenRecoveredOnRetry(WsClient client, String topic, String epoch, List<String> keys) {
        List<String> frames = new ArrayList<>();
        for (int i = 0; i < keys.size(); i++) {
            frames.add(recoverFromStart(topic, keys.get(i), epoch, 100 + i));
        }
        client.sendTogether(frames);
        for (int i = 0; i < keys.size() - 1; i++) {
            JsonNode subscribed = client.expect("subscribed");
            assertThat(subscribed.get("id").asLong()).isEqualTo(100 + i);
        }
        JsonNode busy = client.expect("error");
        assertThat(busy.get("code").asText()).isEqualTo("busy");
        assertThat(busy.get("id").asLong()).isEqualTo(100 + keys.size() - 1);
        Map<String, List<String>> recovered = new java.util.TreeMap<>();
        client.messages(3 * (keys.size() - 1)).forEach(m -> recovered.computeIfAbsent(m.get("endpoint").asText(), e -> new ArrayList<>())
                .add(m.get("payload").asText()));
        for (String key : keys.subList(0, keys.size() - 1)) {
            assertThat(recovered.get("/" + topic + "/" + key)).containsExactly(key + "-0", key + "-1", key + "-2");
        }

        // What a client does on busy: back off and subscribe again. Nothing was subscribed, so nothing is lost.
        String last = keys.get(keys.size() - 1);
        List<String> payloads = new ArrayList<>();
        for (int attempt = 0; payloads.isEmpty(); attempt++) {
            assertThat(attempt).as("attempts").isLessThan(50);
            client.sendText(recoverFromStart(topic, last, epoch, 200 + attempt));
            JsonNode reply = client.next();
            if (reply.get("type").asText().equals("error")) {
                assertThat(reply.get("code").asText()).isEqualTo("busy");
                sleep(100);
                continue;
            }
            assertThat(reply.get("type").asText()).isEqualTo("subscribed");
            client.messages(3).forEach(m -> payloads.add(m.get("payload").asText()));
        }
        assertThat(payloads).containsExactly(last + "-0", last + "-1", last + "-2");
    }

    private static void sleep(long millis) {
        try {
            Thread.sleep(millis);
        }
        catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError(e);
        }
    }

    @Test
    void overlappingRefreshesAreRefusedWhileOneIsBeingValidated() throws Exception {
        String topic = kafka.createTopic(1);
        try (BridgeFixture bridge = bridge("topics: " + topic);
             WsClient client = WsClient.connected(bridge.port(), everything(topic))) {
            List<String> frames = new ArrayList<>();
            for (int i = 0; i < 20; i++) {
                frames.add(frame("refresh", 100 + i, m -> m.put("token", everything(topic))));
            }
            client.sendTogether(frames);
            int refreshed = 0;
            int busy = 0;
            for (int i = 0; i < 20; i++) {
                JsonNode reply = client.next();
                if (reply.get("type").asText().equals("refreshed")) {
                    refreshed++;
                }
                else {
                    assertThat(reply.get("code").asText()).as("%s", reply).isEqualTo("busy");
                    busy++;
                }
            }
            assertThat(refreshed).isBetween(1, 3);
            assertThat(busy).isEqualTo(20 - refreshed);
            assertThat(bridge.metric("sluice_bridge_requests_refused_total", "reason=\"refresh_in_flight\"")).isEqualTo(busy);

            client.request("refresh", m -> m.put("token", everything(topic)));
            client.expect("refreshed");
        }
    }

    @Test
    void aSubscribeFloodIsRateLimitedAndTheConnectionCanSubscribeAfterTheAdvisedWait() throws Exception {
        String topic = kafka.createTopic(1);
        try (BridgeFixture bridge = bridge("topics: " + topic);
             WsClient client = WsClient.connected(bridge.port(), everything(topic))) {
            List<String> frames = new ArrayList<>();
            for (int i = 0; i < 400; i++) {
                frames.add(frame("subscribe", 2L * i, m -> m.put("endpoint", "/" + topic + "/k")));
                frames.add(frame("unsubscribe", 2L * i + 1, m -> m.put("endpoint", "/" + topic + "/k")));
            }
            long start = System.nanoTime();
            client.sendTogether(frames);
            int subscribed = 0;
            long retryAfter = -1;
            for (int i = 0; i < 800; i++) {
                JsonNode reply = client.next();
                switch (reply.get("type").asText()) {
                    case "subscribed" -> subscribed++;
                    case "unsubscribed" -> { }
                    case "error" -> {
                        String code = reply.get("code").asText();
                        assertThat(code).as("%s", reply).isIn("rate_limited", "not_subscribed");
                        if (code.equals("rate_limited")) {
                            retryAfter = reply.get("retryAfterMs").asLong();
                        }
                    }
                    default -> throw new AssertionError("unexpected " + reply);
                }
            }
            double seconds = (System.nanoTime() - start) / 1e9;
            // The default bucket: 200 at once, then 50 a second.
            assertThat(subscribed).isGreaterThanOrEqualTo(200).isLessThanOrEqualTo(200 + (int) Math.ceil(seconds * 50) + 1);
            assertThat(retryAfter).isBetween(1L, 20L);
            assertThat(bridge.metric("sluice_bridge_requests_refused_total", "reason=\"subscribe_rate\"")).isEqualTo(400 - subscribed);

            // The flood's last refusal can come before later subscribes of the flood that took the token it advised
            // waiting for; what the node promises is about the next subscribe: refused, it says how long to wait, and
            // after that wait it is accepted.
            long id = client.request("subscribe", m -> m.put("endpoint", "/" + topic + "/k"));
            JsonNode reply = client.next();
            if (reply.get("type").asText().equals("error")) {
                assertThat(reply.get("code").asText()).as("%s", reply).isEqualTo("rate_limited");
                assertThat(reply.get("id").asLong()).isEqualTo(id);
                sleep(reply.get("retryAfterMs").asLong());
                client.subscribe("/" + topic + "/k");
            }
            else {
                assertThat(reply.get("type").asText()).as("%s", reply).isEqualTo("subscribed");
            }
            long seq = kafka.send(topic, "k", "still served");
            assertThat(client.expect("message").get("seq").asLong()).isEqualTo(seq);
        }
    }

    @Test
    void publishesBeyondWhatAConnectionMayHaveInFlightAreBusyAndNothingElseIsLost() throws Exception {
        String topic = kafka.createTopic(1);
        try (BridgeFixture bridge = bridge("topics: " + topic);
             WsClient subscriber = WsClient.connected(bridge.port(), TestAuthenticator.token("victim", topic + "/*", ""));
             WsClient client = WsClient.connected(bridge.port(), everything(topic))) {
            subscriber.subscribe("/" + topic + "/*");
            List<String> frames = new ArrayList<>();
            for (int i = 0; i < 200; i++) {
                int n = i;
                frames.add(frame("publish", 1000 + i, m -> m.put("endpoint", "/" + topic + "/flood").put("payload", "p" + n)));
            }
            client.sendTogether(frames);
            List<String> acked = new ArrayList<>();
            int busy = 0;
            for (int i = 0; i < 200; i++) {
                JsonNode reply = client.next();
                if (reply.get("type").asText().equals("ack")) {
                    acked.add("p" + (reply.get("id").asInt() - 1000));
                }
                else {
                    assertThat(reply.get("code").asText()).as("%s", reply).isEqualTo("busy");
                    busy++;
                }
            }
            // The default requests.publishesInFlight, 64: all of them arrived before Kafka answered any.
            assertThat(acked).hasSizeGreaterThanOrEqualTo(64).hasSizeLessThan(200);
            assertThat(busy).isEqualTo(200 - acked.size());
            assertThat(bridge.metric("sluice_bridge_requests_refused_total", "reason=\"publishes_in_flight\"")).isEqualTo(busy);
            // Exactly the acknowledged ones reached Kafka and the subscriber.
            assertThat(subscriber.messages(acked.size())).extracting(m -> m.get("payload").asText()).containsExactlyInAnyOrderElementsOf(acked);
            assertThat(subscriber.poll(Duration.ofMillis(300))).isNull();

            client.request("publish", m -> m.put("endpoint", "/" + topic + "/flood").put("payload", "after"));
            client.expect("ack");
        }
    }

    @Test
    void oversizedOrTrailingFieldsAreMalformedAndTheConnectionKeepsWorking() throws Exception {
        String topic = kafka.createTopic(1);
        try (BridgeFixture bridge = bridge("topics: " + topic);
             WsClient client = WsClient.connected(bridge.port(), everything(topic))) {
            String longKey = "k".repeat(1100);
            client.request("subscribe", m -> m.put("endpoint", "/" + topic + "/" + longKey));
            JsonNode endpoint = client.expect("error");
            assertThat(endpoint.get("code").asText()).isEqualTo("malformed");
            assertThat(endpoint.get("message").asText()).contains("endpoint").contains("1024 bytes").doesNotContain(longKey);
            client.request("publish", m -> m.put("endpoint", "/" + topic + "/" + longKey).put("payload", "x"));
            assertThat(client.expect("error").get("code").asText()).isEqualTo("malformed");
            client.request("unsubscribe", m -> m.put("endpoint", "/" + topic + "/" + longKey));
            assertThat(client.expect("error").get("code").asText()).isEqualTo("malformed");
            client.request("refresh", m -> m.put("token", everything(topic) + ";" + "x".repeat(17 * 1024)));
            JsonNode token = client.expect("error");
            assertThat(token.get("code").asText()).isEqualTo("malformed");
            assertThat(token.get("message").asText()).contains("token");
            client.sendText(frame("teleport".repeat(1000), 7, m -> { }));
            JsonNode unknown = client.expect("error");
            assertThat(unknown.get("code").asText()).isEqualTo("unknown_type");
            assertThat(unknown.get("message").asText()).hasSizeLessThan(100);
            // One request per frame: a second value after the first is not silently ignored.
            client.sendText(frame("subscribe", 8, m -> m.put("endpoint", "/" + topic + "/k")) + " {\"type\": \"unsubscribe\"}");
            assertThat(client.expect("error").get("code").asText()).isEqualTo("malformed");

            try (WsClient fresh = WsClient.connect(bridge.port())) {
                // Over maxTokenBytes (16 KiB) but within the message size allowed before connect (16 KiB + 1 KiB).
                fresh.request("connect", m -> m.put("token", "x".repeat(16 * 1024 + 512)));
                assertThat(fresh.expect("error").get("code").asText()).isEqualTo("malformed");
                fresh.request("connect", m -> m.put("token", everything(topic)));
                fresh.expect("connected");
            }

            client.subscribe("/" + topic + "/" + "k".repeat(900));
            long seq = kafka.send(topic, "k".repeat(900), "long keys within the limit work");
            assertThat(client.expect("message").get("seq").asLong()).isEqualTo(seq);
        }
    }
}
