package io.sluice.bridge.server;

import java.time.Duration;
import java.time.Instant;
import java.util.Base64;
import java.util.List;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.flipkart.zjsonpatch.JsonPatch;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.extension.RegisterExtension;

import io.kroxylicious.testing.kafka.api.KafkaCluster;
import io.kroxylicious.testing.kafka.common.BrokerCluster;
import io.kroxylicious.testing.kafka.junit5ext.KafkaClusterExtension;
import io.netty.handler.codec.http.websocketx.BinaryWebSocketFrame;
import io.netty.buffer.Unpooled;
import io.sluice.bridge.auth.TestAuthenticator;
import io.sluice.bridge.protocol.CloseCodes;

import static org.assertj.core.api.Assertions.assertThat;

/** Real Kafka, real WebSocket clients: subscribing, prefixes, permissions, publishing, bad input, deltas, tokens. */
@ExtendWith(KafkaClusterExtension.class)
class SubscribeAndPublishTest {

    @BrokerCluster(numBrokers = 1)
    static KafkaCluster cluster;

    @RegisterExtension
    static final KafkaHelper kafka = KafkaHelper.perClass(() -> cluster.getBootstrapServers());

    private static String everything(String topic) {
        return TestAuthenticator.token("alice", topic + "/*", topic + "/*");
    }

    private BridgeFixture bridge(String sections) {
        return BridgeFixture.start(cluster.getBootstrapServers(), "node-a", sections);
    }

    /**
     * What an open WebSocket holds is what it uses: after the upgrade the HTTP handlers (codec, aggregator, body limit,
     * guard, routes, answer order, event-stream route, static files, Netty's 403 responder) are gone from its pipeline,
     * each of which cost a context and its state for the connection's life (docs/bridge.md, "Memory per connection"),
     * and the connection still subscribes, publishes and answers pings.
     */
    @Test
    void anUpgradedConnectionKeepsOnlyTheWebSocketHandlers() throws Exception {
        String topic = kafka.createTopic(1);
        try (BridgeFixture bridge = bridge("topics: " + topic);
             WsClient client = WsClient.connected(bridge.port(), everything(topic))) {
            client.subscribe("/" + topic + "/k");
            io.netty.channel.Channel connection = bridge.server().connections().iterator().next();
            List<String> names = connection.eventLoop().submit(() -> connection.pipeline().names()).get();
            assertThat(names).containsExactly("writability-gate", "frames", "wsencoder", "wsdecoder", "held",
                    "io.netty.handler.codec.http.websocketx.Utf8FrameValidator", "websocket", "fragments", "session",
                    "DefaultChannelPipeline$TailContext#0");

            long seq = kafka.send(topic, "k", "after the upgrade");
            assertThat(client.messages(1).get(0).get("seq").asLong()).isEqualTo(seq);
        }
    }

    @Test
    void subscriberReceivesEachRecordOfItsKeyWithEpochSeqTimestampAndExactPayload() throws Exception {
        String topic = kafka.createTopic(1);
        try (BridgeFixture bridge = bridge("topics: " + topic);
             WsClient client = WsClient.connected(bridge.port(), everything(topic))) {
            JsonNode subscribed = client.subscribe("/" + topic + "/a/b/c");
            String epoch = subscribed.get("positions").get(0).get("epoch").asText();
            assertThat(subscribed.get("positions").get(0).get("seq").asLong()).isEqualTo(-1);

            byte[] binary = {0, 1, 2, (byte) 0xff, (byte) 0xc3, 0x28};
            long json = kafka.send(topic, "a/b/c", "{\"score\": [1, 0], \"text\": \"caf\u00e9\"}");
            kafka.send(topic, "other", "not for this subscriber");
            long text = kafka.send(topic, "a/b/c", "plain \"text\"");
            long bytes = kafka.send(topic, "a/b/c", binary);
            long tombstone = kafka.send(topic, "a/b/c", (byte[]) null);

            List<JsonNode> messages = client.messages(4);
            assertThat(messages).extracting(m -> m.get("seq").asLong()).containsExactly(json, text, bytes, tombstone);
            assertThat(messages).allSatisfy(m -> {
                assertThat(m.get("endpoint").asText()).isEqualTo("/" + topic + "/a/b/c");
                assertThat(m.get("epoch").asText()).isEqualTo(epoch);
                assertThat(m.get("timestamp").asLong()).isPositive();
            });
            assertThat(messages.get(0).get("format").asText()).isEqualTo("json");
            assertThat(messages.get(0).get("payload")).isEqualTo(WsClient.JSON.readTree("{\"score\":[1,0],\"text\":\"caf\u00e9\"}"));
            assertThat(messages.get(1).get("format").asText()).isEqualTo("text");
            assertThat(messages.get(1).get("payload").asText()).isEqualTo("plain \"text\"");
            assertThat(messages.get(2).get("format").asText()).isEqualTo("base64");
            assertThat(Base64.getDecoder().decode(messages.get(2).get("payload").asText())).isEqualTo(binary);
            assertThat(messages.get(3).get("format").asText()).isEqualTo("none");
            assertThat(messages.get(3).get("payload").isNull()).isTrue();
        }
    }

    @Test
    void prefixSubscriptionReceivesEveryKeyUnderItOnceAndNothingElse() throws Exception {
        String topic = kafka.createTopic(3);
        String sections = """
                endpoints:
                  - endpoint: /scores/live/*
                    topic: %s
                    key: live/*
                  - endpoint: /scores/results
                    topic: %s
                    key: results
                """.formatted(topic, topic);
        try (BridgeFixture bridge = bridge(sections);
             WsClient client = WsClient.connected(bridge.port(), everything(topic))) {
            JsonNode subscribed = client.subscribe("/scores/live/*");
            assertThat(subscribed.get("positions")).hasSize(3);
            // Overlapping with the prefix: still one copy of each message.
            client.subscribe("/scores/live/football");

            kafka.send(topic, "live/football", "{\"home\": 1}");
            kafka.send(topic, "results", "{\"final\": true}");
            kafka.send(topic, "live/tennis/wimbledon", "{\"set\": 2}");
            kafka.send(topic, "live/football", "{\"home\": 2}");

            List<JsonNode> messages = client.messages(3);
            assertThat(messages).extracting(m -> m.get("endpoint").asText()).containsExactlyInAnyOrder(
                    "/scores/live/football", "/scores/live/tennis/wimbledon", "/scores/live/football");
            assertThat(messages.stream().filter(m -> m.get("endpoint").asText().equals("/scores/live/football")))
                    .extracting(m -> m.get("payload").get("home").asInt()).containsExactly(1, 2);
            assertThat(client.poll(Duration.ofMillis(500))).as("no duplicate, nothing from /scores/results").isNull();

            client.subscribe("/scores/results");
            kafka.send(topic, "results", "{\"final\": 3}");
            assertThat(client.next().get("endpoint").asText()).isEqualTo("/scores/results");
        }
    }

    @Test
    void subscribingOrPublishingOutsideThePermissionsIsForbiddenAndTheConnectionStaysUsable() throws Exception {
        String topic = kafka.createTopic(1);
        String token = TestAuthenticator.token("bob", topic + "/allowed," + topic + "/news/*", topic + "/allowed");
        try (BridgeFixture bridge = bridge("topics: " + topic);
             WsClient client = WsClient.connected(bridge.port(), token)) {
            for (String endpoint : List.of("/" + topic + "/secret", "/" + topic + "/*", "/" + topic + "/news")) {
                client.request("subscribe", m -> m.put("endpoint", endpoint));
                JsonNode error = client.expect("error");
                assertThat(error.get("code").asText()).as(endpoint).isEqualTo("forbidden");
            }
            client.request("publish", m -> m.put("endpoint", "/" + topic + "/news/x").put("payload", "hi"));
            assertThat(client.expect("error").get("code").asText()).isEqualTo("forbidden");
            client.request("subscribe", m -> m.put("endpoint", "/nowhere/x"));
            assertThat(client.expect("error").get("code").asText()).isEqualTo("unknown_endpoint");

            client.subscribe("/" + topic + "/news/*");
            client.subscribe("/" + topic + "/allowed");
            long offset = kafka.send(topic, "allowed", "ok");
            assertThat(client.expect("message").get("seq").asLong()).isEqualTo(offset);
        }
    }

    @Test
    void publishIsAcknowledgedWithItsOffsetOnlyAfterKafkaHasItAndReachesSubscribers() throws Exception {
        String topic = kafka.createTopic(2);
        try (BridgeFixture bridge = bridge("topics: " + topic);
             WsClient subscriber = WsClient.connected(bridge.port(), everything(topic));
             WsClient publisher = WsClient.connected(bridge.port(), everything(topic))) {
            subscriber.subscribe("/" + topic + "/room/1");
            long id = publisher.request("publish", m -> m.put("endpoint", "/" + topic + "/room/1")
                    .set("payload", WsClient.JSON.createObjectNode().put("say", "hello")));
            JsonNode ack = publisher.expect("ack");
            assertThat(ack.get("id").asLong()).isEqualTo(id);
            JsonNode message = subscriber.expect("message");
            assertThat(message.get("seq").asLong()).isEqualTo(ack.get("seq").asLong());
            assertThat(message.get("epoch").asText()).isEqualTo(ack.get("epoch").asText());
            assertThat(message.get("payload").get("say").asText()).isEqualTo("hello");

            byte[] binary = {(byte) 0x80, 0, 0x7f};
            publisher.request("publish", m -> m.put("endpoint", "/" + topic + "/room/1").put("format", "base64")
                    .put("payload", Base64.getEncoder().encodeToString(binary)));
            long binarySeq = publisher.expect("ack").get("seq").asLong();
            JsonNode binaryMessage = subscriber.expect("message");
            assertThat(binaryMessage.get("seq").asLong()).isEqualTo(binarySeq);
            assertThat(Base64.getDecoder().decode(binaryMessage.get("payload").asText())).isEqualTo(binary);

            publisher.request("publish", m -> m.put("endpoint", "/" + topic + "/*").put("payload", "x"));
            assertThat(publisher.expect("error").get("code").asText()).isEqualTo("malformed");
            assertThat(bridge.metric("sluice_bridge_publish_total", "result=\"ok\"")).isEqualTo(2);
        }
    }

    @Test
    void malformedFramesGetAnErrorOversizedOnesA1009AndTheServerKeepsServing() throws Exception {
        String topic = kafka.createTopic(1);
        try (BridgeFixture bridge = BridgeFixture.start(cluster.getBootstrapServers(), "node-a",
                "maxInboundMessageBytes: 2048", "topics: " + topic);
             WsClient client = WsClient.connect(bridge.port())) {
            client.request("subscribe", m -> m.put("endpoint", "/" + topic + "/k"));
            assertThat(client.expect("error").get("code").asText()).isEqualTo("not_connected");
            client.request("connect", m -> m.put("token", everything(topic)));
            client.expect("connected");

            client.sendText("this is not json");
            assertThat(client.expect("error").get("code").asText()).isEqualTo("malformed");
            client.sendText("[1, 2]");
            assertThat(client.expect("error").get("code").asText()).isEqualTo("malformed");
            client.sendText("{\"type\": \"subscribe\", \"id\": 9}");
            JsonNode missing = client.expect("error");
            assertThat(missing.get("code").asText()).isEqualTo("malformed");
            assertThat(missing.get("id").asLong()).isEqualTo(9);
            assertThat(missing.get("message").asText()).contains("endpoint");
            client.sendText("{\"type\": \"teleport\"}");
            assertThat(client.expect("error").get("code").asText()).isEqualTo("unknown_type");
            client.sendFrame(new BinaryWebSocketFrame(Unpooled.wrappedBuffer(new byte[] {1, 2, 3})));
            assertThat(client.expect("error").get("code").asText()).isEqualTo("malformed");

            try (WsClient oversized = WsClient.connect(bridge.port())) {
                oversized.sendText("{\"type\": \"connect\", \"token\": \"" + "x".repeat(4096) + "\"}");
                assertThat(oversized.awaitClose()).isEqualTo(CloseCodes.MESSAGE_TOO_BIG);
            }

            client.subscribe("/" + topic + "/k");
            long offset = kafka.send(topic, "k", "still serving");
            assertThat(client.expect("message").get("seq").asLong()).isEqualTo(offset);
        }
    }

    @Test
    void jsonPatchDeltasReassembleEveryDocumentExactly() throws Exception {
        String topic = kafka.createTopic(1);
        try (BridgeFixture bridge = bridge("topics: " + topic);
             WsClient client = WsClient.connected(bridge.port(), everything(topic))) {
            client.subscribe("/" + topic + "/doc", m -> m.put("delta", true));
            ObjectNode doc = WsClient.JSON.createObjectNode().put("id", "match-7").put("home", 0).put("away", 0);
            doc.putArray("events");
            List<String> produced = new java.util.ArrayList<>();
            for (int i = 0; i < 20; i++) {
                doc.put(i % 2 == 0 ? "home" : "away", i);
                ((com.fasterxml.jackson.databind.node.ArrayNode) doc.get("events")).add("event " + i);
                if (i == 10) {
                    doc.remove("away");
                }
                if (i == 12) {
                    doc.putObject("extra").put("note", "\u00fcber \"quoted\"");
                }
                produced.add(doc.toString());
                kafka.send(topic, "doc", doc.toString());
            }
            JsonNode current = null;
            long lastSeq = -1;
            int deltas = 0;
            for (int i = 0; i < produced.size(); i++) {
                JsonNode m = client.next();
                if (m.get("type").asText().equals("delta")) {
                    assertThat(m.get("base").asLong()).isEqualTo(lastSeq);
                    current = JsonPatch.apply(m.get("patch"), current);
                    deltas++;
                }
                else {
                    assertThat(m.get("type").asText()).isEqualTo("message");
                    current = m.get("payload");
                }
                lastSeq = m.get("seq").asLong();
                assertThat(current).isEqualTo(WsClient.JSON.readTree(produced.get(i)));
            }
            assertThat(deltas).as("all but the first arrive as deltas").isEqualTo(produced.size() - 1);
        }
    }

    @Test
    void partitionsAndTopicsThatAppearAfterStartUpAreReadFromTheirBeginning() throws Exception {
        String grown = kafka.createTopic(1);
        String later = KafkaHelper.newTopicName();
        String token = TestAuthenticator.token("hal", grown + "/*," + later + "/*", "");
        try (BridgeFixture bridge = bridge("topics: " + grown + "," + later);
             WsClient client = WsClient.connected(bridge.port(), token)) {
            client.subscribe("/" + grown + "/*");
            client.subscribe("/" + later + "/*");
            kafka.growTo(grown, 2);
            kafka.createTopic(later, 1);
            // Produced before the bridge can have noticed either: still delivered, because new partitions start at 0.
            long inNewPartition = kafka.send(grown, 1, "k", "new partition");
            long inNewTopic = kafka.send(later, 0, "k", "new topic");
            List<JsonNode> messages = client.messages(2);
            assertThat(messages).extracting(m -> m.get("endpoint").asText() + "@" + m.get("seq").asLong())
                    .containsExactlyInAnyOrder("/" + grown + "/k@" + inNewPartition, "/" + later + "/k@" + inNewTopic);
        }
    }

    @Test
    void snapshotStartsWithTheLatestCachedMessageOfEachEndpoint() throws Exception {
        String topic = kafka.createTopic(1);
        try (BridgeFixture bridge = bridge("topics: " + topic);
             WsClient client = WsClient.connected(bridge.port(), everything(topic))) {
            kafka.send(topic, "a", "a1");
            long a2 = kafka.send(topic, "a", "a2");
            long b1 = kafka.send(topic, "b", "b1");
            org.awaitility.Awaitility.await().until(() -> bridge.metric("sluice_bridge_kafka_records_total", "") >= 3);

            client.subscribe("/" + topic + "/a", m -> m.put("snapshot", true));
            assertThat(client.expect("message").get("seq").asLong()).isEqualTo(a2);
            client.subscribe("/" + topic + "/*", m -> m.put("snapshot", true));
            assertThat(client.messages(2)).extracting(m -> m.get("seq").asLong()).containsExactlyInAnyOrder(a2, b1);
            long live = kafka.send(topic, "b", "b2");
            assertThat(client.expect("message").get("seq").asLong()).isEqualTo(live);
            client.subscribe("/" + topic + "/never", m -> m.put("snapshot", true));
            assertThat(client.poll(java.time.Duration.ofMillis(300))).as("nothing cached, nothing sent").isNull();
        }
    }

    @Test
    void invalidTokenClosesWith4001() throws Exception {
        String topic = kafka.createTopic(1);
        try (BridgeFixture bridge = bridge("topics: " + topic);
             WsClient client = WsClient.connect(bridge.port())) {
            client.request("connect", m -> m.put("token", "garbage"));
            assertThat(client.awaitClose()).isEqualTo(CloseCodes.AUTHENTICATION_FAILED);
        }
    }

    @Test
    void tokenThatExpiresUnrefreshedIsWarnedThenClosedWith4002() throws Exception {
        String topic = kafka.createTopic(1);
        try (BridgeFixture bridge = bridge("topics: " + topic);
             WsClient client = WsClient.connected(bridge.port(), TestAuthenticator.token("carol", Duration.ofMillis(2500), topic + "/*", ""))) {
            assertThat(client.expect("expiring").get("expiresAt").asLong()).isPositive();
            assertThat(client.awaitClose()).isEqualTo(CloseCodes.TOKEN_EXPIRED);
        }
    }

    @Test
    void refreshedTokenKeepsTheConnectionAndItsSubscriptionsPastTheOldExpiry() throws Exception {
        String topic = kafka.createTopic(1);
        try (BridgeFixture bridge = bridge("topics: " + topic)) {
            WsClient client = WsClient.connect(bridge.port());
            client.request("connect", m -> m.put("token", TestAuthenticator.token("dave", Duration.ofMillis(2500), topic + "/*", "")));
            Instant firstExpiry = Instant.ofEpochMilli(client.expect("connected").get("expiresAt").asLong());
            // The warning comes a second before expiry: on a busy machine possibly before the subscribe reply.
            client.request("subscribe", m -> m.put("endpoint", "/" + topic + "/k"));
            client.expectEach("subscribed", "expiring");
            client.request("refresh", m -> m.put("token", TestAuthenticator.token("mallory", Duration.ofSeconds(60), topic + "/*", "")));
            assertThat(client.expect("error").get("code").asText()).isEqualTo("invalid_token");
            client.request("refresh", m -> m.put("token", TestAuthenticator.token("dave", Duration.ofSeconds(60), topic + "/*", "")));
            client.expect("refreshed");

            while (Instant.now().isBefore(firstExpiry.plusMillis(500))) {
                Thread.sleep(100);
            }
            long offset = kafka.send(topic, "k", "after the first expiry");
            assertThat(client.expect("message").get("seq").asLong()).isEqualTo(offset);
            assertThat(client.isOpen()).isTrue();
            client.close();
        }
    }

    @Test
    void subscriptionsBeyondTheConnectionsLimitAreRefusedWithTooManySubscriptions() throws Exception {
        String topic = kafka.createTopic(1);
        try (BridgeFixture bridge = BridgeFixture.start(cluster.getBootstrapServers(), "node-a", "maxSubscriptionsPerConnection: 2", "topics: " + topic);
             WsClient client = WsClient.connected(bridge.port(), everything(topic))) {
            client.subscribe("/" + topic + "/a");
            client.subscribe("/" + topic + "/b/*");
            client.request("subscribe", m -> m.put("endpoint", "/" + topic + "/c"));
            JsonNode refused = client.expect("error");
            assertThat(refused.get("code").asText()).isEqualTo("too_many_subscriptions");

            client.request("unsubscribe", m -> m.put("endpoint", "/" + topic + "/a"));
            client.expect("unsubscribed");
            client.subscribe("/" + topic + "/c");
            long seq = kafka.send(topic, "c", "{}");
            assertThat(client.messages(1).get(0).get("seq").asLong()).isEqualTo(seq);
        }
    }
}
