package io.sluice.bridge.server;

import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.extension.RegisterExtension;

import io.kroxylicious.testing.kafka.api.KafkaCluster;
import io.kroxylicious.testing.kafka.common.BrokerCluster;
import io.kroxylicious.testing.kafka.junit5ext.KafkaClusterExtension;
import io.sluice.bridge.auth.TestAuthenticator;
import io.sluice.bridge.kafka.PartitionEpochs;
import io.sluice.config.HostPort;
import io.sluice.testkit.TcpRelay;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * A client leaves one node and comes back on another with its last epoch/seq per partition: it gets exactly the
 * messages it missed, in order, from the new node's cache, from the Kafka log beyond it, or a gap if the log lost them.
 */
@ExtendWith(KafkaClusterExtension.class)
class RecoveryTest {

    @BrokerCluster(numBrokers = 1)
    static KafkaCluster cluster;

    @RegisterExtension
    static final KafkaHelper kafka = KafkaHelper.perClass(() -> cluster.getBootstrapServers());

    private static String token(String topic) {
        return TestAuthenticator.token("erin", topic + "/*", "");
    }

    /** What a client remembers: the highest seq per epoch, from {@code subscribed} and from every message. */
    private static final class Positions {
        final Map<String, Long> seqs = new LinkedHashMap<>();

        void subscribed(JsonNode reply) {
            reply.get("positions").forEach(p -> seqs.merge(p.get("epoch").asText(), p.get("seq").asLong(), Math::max));
        }

        void saw(JsonNode message) {
            seqs.merge(message.get("epoch").asText(), message.get("seq").asLong(), Math::max);
        }

        void recover(com.fasterxml.jackson.databind.node.ObjectNode subscribe) {
            ArrayNode recover = subscribe.putArray("recover");
            seqs.forEach((epoch, seq) -> recover.addObject().put("epoch", epoch).put("seq", seq));
        }
    }

    private static void awaitRead(BridgeFixture node, long records) {
        await().atMost(Duration.ofSeconds(30)).until(() -> node.metric("sluice_bridge_kafka_records_total", "") >= records);
    }

    @Test
    void reconnectingToAnotherNodeRecoversFromItsCacheWithNoGapAndNoDuplicate() throws Exception {
        String topic = kafka.createTopic(2);
        try (BridgeFixture a = BridgeFixture.start(cluster.getBootstrapServers(), "node-a", "topics: " + topic);
             BridgeFixture b = BridgeFixture.start(cluster.getBootstrapServers(), "node-b", "topics: " + topic)) {
            Positions positions = new Positions();
            List<Long> sent = new ArrayList<>();
            try (WsClient client = WsClient.connected(a.port(), token(topic))) {
                positions.subscribed(client.subscribe("/" + topic + "/k"));
                for (int i = 0; i < 5; i++) {
                    sent.add(kafka.send(topic, "k", "{\"n\": " + i + "}"));
                }
                client.messages(5).forEach(positions::saw);
            }
            List<Long> missed = new ArrayList<>();
            for (int i = 5; i < 12; i++) {
                missed.add(kafka.send(topic, "k", "{\"n\": " + i + "}"));
                kafka.send(topic, "other-" + i, "noise");
            }
            awaitRead(b, 19);

            try (WsClient client = WsClient.connected(b.port(), token(topic))) {
                client.subscribe("/" + topic + "/k", positions::recover);
                List<JsonNode> recovered = client.messages(missed.size());
                assertThat(recovered).extracting(m -> m.get("seq").asLong()).containsExactlyElementsOf(missed);
                assertThat(recovered).extracting(m -> m.get("payload").get("n").asInt()).containsExactly(5, 6, 7, 8, 9, 10, 11);
                long live = kafka.send(topic, "k", "{\"n\": 12}");
                assertThat(client.expect("message").get("seq").asLong()).isEqualTo(live);
            }
            assertThat(b.metric("sluice_bridge_recovery_requests_total", "source=\"cache\"")).isEqualTo(1);
            assertThat(b.metric("sluice_bridge_recovery_requests_total", "source=\"kafka\"")).isZero();
        }
    }

    @Test
    void recoveryBeyondTheCacheReadsTheKafkaLogForAPrefixSubscription() throws Exception {
        String topic = kafka.createTopic(3);
        String small = "topics: " + topic + "\nrecovery:\n  cacheMessagesPerEndpoint: 2\n";
        try (BridgeFixture a = BridgeFixture.start(cluster.getBootstrapServers(), "node-a", "topics: " + topic);
             BridgeFixture b = BridgeFixture.start(cluster.getBootstrapServers(), "node-b", small)) {
            Positions positions = new Positions();
            try (WsClient client = WsClient.connected(a.port(), token(topic))) {
                positions.subscribed(client.subscribe("/" + topic + "/*"));
                assertThat(positions.seqs).hasSize(3);
                for (int i = 0; i < 6; i++) {
                    kafka.send(topic, "key-" + (i % 3), "before " + i);
                }
                client.messages(6).forEach(positions::saw);
            }
            Map<String, List<Long>> missedByKey = new LinkedHashMap<>();
            for (int i = 0; i < 30; i++) {
                String key = "key-" + (i % 4);
                missedByKey.computeIfAbsent("/" + topic + "/" + key, k -> new ArrayList<>()).add(kafka.send(topic, key, "missed " + i));
            }
            awaitRead(b, 36);

            try (WsClient client = WsClient.connected(b.port(), token(topic))) {
                client.subscribe("/" + topic + "/*", positions::recover);
                List<JsonNode> recovered = client.messages(30);
                Map<String, List<Long>> receivedByKey = new LinkedHashMap<>();
                recovered.forEach(m -> receivedByKey.computeIfAbsent(m.get("endpoint").asText(), k -> new ArrayList<>()).add(m.get("seq").asLong()));
                assertThat(receivedByKey).isEqualTo(missedByKey);
                long live = kafka.send(topic, "key-0", "live");
                JsonNode next = client.expect("message");
                assertThat(next.get("seq").asLong()).isEqualTo(live);
                assertThat(next.get("payload").asText()).isEqualTo("live");
            }
            assertThat(b.metric("sluice_bridge_recovery_requests_total", "source=\"kafka\"")).isEqualTo(3);
        }
    }

    @Test
    void messagesGoneFromTheLogAreReportedAsAGapBeforeTheRest() throws Exception {
        String topic = kafka.createTopic(1);
        String small = "topics: " + topic + "\nrecovery:\n  cacheMessagesPerEndpoint: 1\n";
        try (BridgeFixture a = BridgeFixture.start(cluster.getBootstrapServers(), "node-a", "topics: " + topic);
             BridgeFixture b = BridgeFixture.start(cluster.getBootstrapServers(), "node-b", small)) {
            Positions positions = new Positions();
            try (WsClient client = WsClient.connected(a.port(), token(topic))) {
                positions.subscribed(client.subscribe("/" + topic + "/k"));
                kafka.send(topic, "k", "seen");
                positions.saw(client.expect("message"));
            }
            List<Long> missed = new ArrayList<>();
            for (int i = 0; i < 10; i++) {
                missed.add(kafka.send(topic, "k", "missed " + i));
            }
            awaitRead(b, 11);
            long lost = missed.get(4);
            kafka.deleteBefore(topic, 0, lost + 1);

            try (WsClient client = WsClient.connected(b.port(), token(topic))) {
                client.subscribe("/" + topic + "/k", m -> {
                    positions.recover(m);
                    ((ArrayNode) m.get("recover")).addObject().put("epoch", "no-such-epoch").put("seq", 3);
                });
                JsonNode unknown = client.expect("gap");
                assertThat(unknown.get("epoch").asText()).isEqualTo("no-such-epoch");
                assertThat(unknown.get("reason").asText()).isEqualTo("unknown_epoch");
                JsonNode gap = client.expect("gap");
                assertThat(gap.get("reason").asText()).isEqualTo("retention");
                assertThat(gap.get("fromSeq").asLong()).isEqualTo(missed.get(0));
                assertThat(gap.get("toSeq").asLong()).isEqualTo(lost);
                assertThat(client.messages(5)).extracting(m -> m.get("seq").asLong()).containsExactlyElementsOf(missed.subList(5, 10));
            }
        }
    }

    @Test
    void aClientComingFromANodeAheadOfThisOneGetsNoMessageTwice() throws Exception {
        String topic = kafka.createTopic(1);
        try (BridgeFixture node = BridgeFixture.start(cluster.getBootstrapServers(), "node-behind", "topics: " + topic);
             WsClient client = WsClient.connected(node.port(), token(topic))) {
            JsonNode first = client.subscribe("/" + topic + "/k");
            String epoch = first.get("positions").get(0).get("epoch").asText();
            client.request("unsubscribe", m -> m.put("endpoint", "/" + topic + "/k"));
            client.expect("unsubscribed");
            // As if another node had already delivered offsets 0..2 and this one has not read them yet.
            client.subscribe("/" + topic + "/k", m -> m.putArray("recover").addObject().put("epoch", epoch).put("seq", 2));
            List<Long> sent = new ArrayList<>();
            for (int i = 0; i < 6; i++) {
                sent.add(kafka.send(topic, "k", "n" + i));
            }
            assertThat(sent).startsWith(0L, 1L, 2L);
            assertThat(client.messages(3)).extracting(m -> m.get("seq").asLong()).containsExactlyElementsOf(sent.subList(3, 6));
            assertThat(client.poll(Duration.ofMillis(300))).isNull();
        }
    }

    /**
     * A client's node goes away; it reconnects to a node that has just started and whose reader cannot reach Kafka yet
     * (its bootstrap address is down). Answered then, every recover position would be an {@code unknown_epoch} gap and
     * the client would drop it. Instead the subscribe, and the request behind it, wait for the reader; then the client
     * gets what it missed while no node served it, in order, with no gap.
     */
    @Test
    void aSubscribeBeforeTheReaderHasStartedWaitsForItAndThenRecoversWithNoGap() throws Exception {
        String topic = kafka.createTopic(2);
        String pattern = "/" + topic + "/*";
        Positions positions = new Positions();
        try (BridgeFixture a = BridgeFixture.start(cluster.getBootstrapServers(), "node-a", "topics: " + topic);
             WsClient client = WsClient.connected(a.port(), token(topic))) {
            positions.subscribed(client.subscribe(pattern));
            for (int i = 0; i < 4; i++) {
                kafka.send(topic, i % 2, "k" + i, "before " + i);
            }
            client.messages(4).forEach(positions::saw);
        }
        assertThat(positions.seqs).hasSize(2);
        Map<Integer, List<Long>> missed = new TreeMap<>();
        for (int i = 0; i < 10; i++) {
            missed.computeIfAbsent(i % 2, p -> new ArrayList<>()).add(kafka.send(topic, i % 2, "k" + i, "missed " + i));
        }

        try (TcpRelay bootstrap = relayTo(cluster.getBootstrapServers())) {
            bootstrap.stop();
            try (BridgeFixture b = BridgeFixture.on("127.0.0.1:" + bootstrap.port(), "node-b").withoutAwaitingTheReader()
                    .start("topics: " + topic);
                 WsClient client = WsClient.connected(b.port(), token(topic))) {
                assertThat(b.server().awaitReading(Duration.ZERO)).isFalse();
                try (WsClient early = WsClient.connect(b.port())) {
                    early.request("subscribe", m -> m.put("endpoint", pattern));
                    JsonNode notConnected = early.poll(Duration.ofSeconds(5));
                    assertThat(notConnected).as("a subscribe before connect is refused at once, not held").isNotNull();
                    assertThat(notConnected.get("code").asText()).isEqualTo("not_connected");
                }
                long subscribe = client.request("subscribe", m -> {
                    m.put("endpoint", pattern);
                    positions.recover(m);
                });
                long unsubscribe = client.request("unsubscribe", m -> m.put("endpoint", "/" + topic + "/not-subscribed"));
                assertThat(client.poll(Duration.ofSeconds(1))).as("nothing is answered before the reader starts").isNull();

                bootstrap.start();
                JsonNode subscribed = client.expect("subscribed");
                assertThat(subscribed.get("id").asLong()).isEqualTo(subscribe);
                JsonNode refused = client.expect("error");
                assertThat(refused.get("id").asLong()).as("the request behind the subscribe keeps its place").isEqualTo(unsubscribe);
                assertThat(refused.get("code").asText()).isEqualTo("not_subscribed");
                Map<Integer, List<Long>> recovered = new TreeMap<>();
                for (JsonNode m : client.messages(10)) {
                    String epoch = m.get("epoch").asText();
                    int partition = Integer.parseInt(epoch.substring(epoch.lastIndexOf('-') + 1));
                    recovered.computeIfAbsent(partition, p -> new ArrayList<>()).add(m.get("seq").asLong());
                }
                assertThat(recovered).isEqualTo(missed);
                long live = kafka.send(topic, 0, "k0", "live");
                assertThat(client.expect("message").get("seq").asLong()).isEqualTo(live);
                assertThat(b.metric("sluice_bridge_recovery_gaps_total", "")).isZero();
            }
        }
    }

    /**
     * Kafka stays unreachable past {@code recovery.startupWait}: the waiting subscribe is refused with {@code busy}, so
     * the client keeps its positions and retries, and so is every subscribe until the reader starts; then a retry
     * recovers everything.
     */
    @Test
    void pastTheStartupWaitSubscribesAreRefusedBusyUntilTheReaderStarts() throws Exception {
        String topic = kafka.createTopic(1);
        String endpoint = "/" + topic + "/k";
        long first = kafka.send(topic, "k", "first");
        long second = kafka.send(topic, "k", "second");
        try (TcpRelay bootstrap = relayTo(cluster.getBootstrapServers())) {
            bootstrap.stop();
            try (BridgeFixture b = BridgeFixture.on("127.0.0.1:" + bootstrap.port(), "node-b").withoutAwaitingTheReader()
                    .start("topics: " + topic + "\nrecovery:\n  startupWait: 1s\n");
                 WsClient client = WsClient.connected(b.port(), token(topic))) {
                String epoch = epochOf(topic);
                java.util.function.Consumer<com.fasterxml.jackson.databind.node.ObjectNode> recoverAfterFirst = m -> {
                    m.put("endpoint", endpoint);
                    m.putArray("recover").addObject().put("epoch", epoch).put("seq", first);
                };
                for (int attempt = 0; attempt < 2; attempt++) {
                    long id = client.request("subscribe", recoverAfterFirst);
                    JsonNode busy = client.expect("error");
                    assertThat(busy.get("id").asLong()).isEqualTo(id);
                    assertThat(busy.get("code").asText()).isEqualTo("busy");
                    assertThat(busy.get("retryAfterMs").asLong()).isEqualTo(1000);
                }
                assertThat(b.metric("sluice_bridge_requests_refused_total", "reason=\"reader_starting\"")).isEqualTo(2);

                bootstrap.start();
                assertThat(b.server().awaitReading(Duration.ofSeconds(60))).isTrue();
                client.request("subscribe", recoverAfterFirst);
                client.expect("subscribed");
                assertThat(client.messages(1).get(0).get("seq").asLong()).isEqualTo(second);
                assertThat(b.metric("sluice_bridge_recovery_gaps_total", "")).isZero();
            }
        }
    }

    /** The epoch every node gives partition 0 of the topic: {@code <topic id>-0}. */
    private static String epochOf(String topic) throws Exception {
        try (org.apache.kafka.clients.admin.Admin admin = org.apache.kafka.clients.admin.Admin.create(
                Map.of("bootstrap.servers", cluster.getBootstrapServers()))) {
            return PartitionEpochs.epoch(admin.describeTopics(List.of(topic)).allTopicNames().get().get(topic).topicId(), 0);
        }
    }

    private static TcpRelay relayTo(String bootstrapServers) throws java.io.IOException {
        HostPort broker = HostPort.parse(bootstrapServers.split(",")[0]);
        return new TcpRelay(broker.host(), broker.port());
    }
}
