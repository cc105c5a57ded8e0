package io.sluice.bridge.mqtt;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import io.sluice.bridge.auth.TestAuthenticator;
import io.sluice.bridge.server.BridgeFixture;
import io.sluice.bridge.server.KafkaHelper;
import io.sluice.config.ConfigException;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Persistent MQTT sessions (docs/bridge-mqtt.md#sessions) across two nodes on one broker: a session left on one node
 * resumes on the other with session present, its subscriptions, every message it missed once and the deliveries it had
 * not acknowledged again with DUP; it is its subject's own; it expires; a clean start ends it. The client is
 * {@link RawMqtt}, so that what it acknowledges and when is the test's.
 */
class MqttSessionsTest {

    private static final ObjectMapper JSON = new ObjectMapper();

    @RegisterExtension
    static final KafkaHelper kafka = KafkaHelper.perClass(MqttNodes::sharedKafka);

    private static String topic;
    private static String sessions;
    private static BridgeFixture a;
    private static BridgeFixture b;
    // Reads the Kafka log for almost every recovery (one message cached per endpoint), one read per connection at once.
    private static BridgeFixture c;

    @BeforeAll
    static void start() throws Exception {
        topic = kafka.createTopic(2);
        // One partition, so that the test reads every session record where KafkaHelper reads.
        sessions = KafkaHelper.newTopicName();
        String mqtt = """
                sessions:
                  maxExpiry: 1h
                  topic: %s
                  partitions: 1
                  checkpointInterval: 100ms
                """.formatted(sessions);
        a = MqttNodes.start(kafka, "node-sessions-a", topic, mqtt);
        b = MqttNodes.start(kafka, "node-sessions-b", topic, mqtt);
        c = BridgeFixture.start(kafka.bootstrap(), "node-sessions-c", """
                topics: %s
                recovery:
                  cacheMessagesPerEndpoint: 1
                  kafkaReadsPerConnection: 1
                mqtt:
                  enabled: true
                  listen: "127.0.0.1:0"
                %s""".formatted(topic, mqtt.indent(2)));
    }

    @AfterAll
    static void stop() {
        c.close();
        b.close();
        a.close();
    }

    private static String token(String subject) {
        return TestAuthenticator.token(subject, topic + "/*", topic + "/*");
    }

    @ParameterizedTest(name = "MQTT {0}")
    @ValueSource(ints = {4, 5})
    void aSessionLeftOnOneNodeResumesOnAnotherWithEveryMissedMessageOnce(int version) throws Exception {
        String client = "resume-" + version;
        String filter = topic + "/v" + version + "/#";
        try (RawMqtt c = RawMqtt.open(a.server().mqttPort())) {
            c.send(RawMqtt.connect(version, client, token("alice"), false, 3600));
            assertThat(RawMqtt.sessionPresent(c.read())).isFalse();
            c.send(RawMqtt.subscribe(version, 1, 1, filter));
            assertThat(c.read().type()).isEqualTo(RawMqtt.SUBACK);
            for (int i = 0; i < 3; i++) {
                kafka.send(topic, "v" + version + "/k" + i, "before-" + i);
            }
            assertThat(readAndAck(c, version, 3)).containsExactlyInAnyOrder("before-0", "before-1", "before-2");
            c.send(RawMqtt.disconnect(version));
            assertThat(c.closedWithin(Duration.ofSeconds(10))).isTrue();
        }
        awaitDisconnectedRecord("alice", client);
        List<String> missed = new ArrayList<>();
        for (int i = 0; i < 6; i++) {
            // Both partitions: the session's positions are per partition.
            kafka.send(topic, "v" + version + "/k" + i, "missed-" + i);
            missed.add("missed-" + i);
        }
        try (RawMqtt c = RawMqtt.open(b.server().mqttPort())) {
            c.send(RawMqtt.connect(version, client, token("alice"), false, 3600));
            RawMqtt.Packet connAck = c.read();
            assertThat(connAck.type()).isEqualTo(RawMqtt.CONNACK);
            assertThat(RawMqtt.sessionPresent(connAck)).isTrue();
            List<RawMqtt.Packet> got = readPublishes(c, version, missed.size());
            assertThat(got).allSatisfy(p -> assertThat(RawMqtt.dup(p)).isFalse());
            assertThat(got.stream().map(p -> RawMqtt.payloadOf(p, version)).toList()).containsExactlyInAnyOrderElementsOf(missed);
            // Nothing more of the past: the next message is the live one.
            kafka.send(topic, "v" + version + "/k0", "live");
            assertThat(readAndAck(c, version, 1)).containsExactly("live");
        }
    }

    @Test
    void deliveriesNotAcknowledgedAreResentWithDupOnTheOtherNode() throws Exception {
        String client = "unacked";
        String filter = topic + "/unacked/#";
        try (RawMqtt c = RawMqtt.open(a.server().mqttPort())) {
            c.send(RawMqtt.connect(5, client, token("alice"), false, 3600));
            assertThat(RawMqtt.sessionPresent(c.read())).isFalse();
            c.send(RawMqtt.subscribe(5, 1, 1, filter));
            assertThat(c.read().type()).isEqualTo(RawMqtt.SUBACK);
            kafka.send(topic, 0, "unacked/k", "first");
            kafka.send(topic, 0, "unacked/k", "second");
            kafka.send(topic, 0, "unacked/k", "third");
            List<RawMqtt.Packet> got = readPublishes(c, 5, 3);
            assertThat(got.stream().map(p -> RawMqtt.payloadOf(p, 5)).toList()).containsExactly("first", "second", "third");
            // Only the first is acknowledged.
            c.send(RawMqtt.puback(RawMqtt.packetIdOf(got.get(0))));
            c.send(RawMqtt.disconnect(5));
            assertThat(c.closedWithin(Duration.ofSeconds(10))).isTrue();
        }
        awaitDisconnectedRecord("alice", client);
        try (RawMqtt c = RawMqtt.open(b.server().mqttPort())) {
            c.send(RawMqtt.connect(5, client, token("alice"), false, 3600));
            assertThat(RawMqtt.sessionPresent(c.read())).isTrue();
            List<RawMqtt.Packet> again = readPublishes(c, 5, 2);
            assertThat(again.stream().map(p -> RawMqtt.payloadOf(p, 5)).toList()).containsExactly("second", "third");
            assertThat(again).allSatisfy(p -> assertThat(RawMqtt.dup(p)).isTrue());
            for (RawMqtt.Packet p : again) {
                c.send(RawMqtt.puback(RawMqtt.packetIdOf(p)));
            }
            kafka.send(topic, 0, "unacked/k", "fourth");
            RawMqtt.Packet live = readPublishes(c, 5, 1).get(0);
            assertThat(RawMqtt.payloadOf(live, 5)).isEqualTo("fourth");
            assertThat(RawMqtt.dup(live)).isFalse();
        }
    }

    @Test
    void aSessionWithMoreSubscriptionsThanTheConnectionsLogReadsResumesThemAll() throws Exception {
        String client = "many";
        try (RawMqtt m = RawMqtt.open(a.server().mqttPort())) {
            m.send(RawMqtt.connect(5, client, token("alice"), false, 3600));
            assertThat(RawMqtt.sessionPresent(m.read())).isFalse();
            // Three exact filters: three bridge subscriptions, each recovering on its own.
            m.send(RawMqtt.subscribe(5, 1, 1, topic + "/many/k0", topic + "/many/k1", topic + "/many/k2"));
            assertThat(m.read().type()).isEqualTo(RawMqtt.SUBACK);
            m.send(RawMqtt.disconnect(5));
            assertThat(m.closedWithin(Duration.ofSeconds(10))).isTrue();
        }
        awaitDisconnectedRecord("alice", client);
        List<String> missed = new ArrayList<>();
        for (int k = 0; k < 3; k++) {
            for (int i = 0; i < 3; i++) {
                kafka.send(topic, "many/k" + k, "k" + k + "-" + i);
                missed.add("k" + k + "-" + i);
            }
        }
        try (RawMqtt m = RawMqtt.open(c.server().mqttPort())) {
            m.send(RawMqtt.connect(5, client, token("alice"), false, 3600));
            assertThat(RawMqtt.sessionPresent(m.read())).isTrue();
            assertThat(readAndAck(m, 5, missed.size())).containsExactlyInAnyOrderElementsOf(missed);
            // Some had to wait for the log read before them: they were made again later, from the same marks.
            assertThat(c.metric("sluice_bridge_requests_refused_total", "reason=\"recovery_connection_busy\"")).isPositive();
            kafka.send(topic, "many/k1", "live");
            assertThat(readAndAck(m, 5, 1)).containsExactly("live");
        }
    }

    @Test
    void aRestoredSubscriptionTheNewTokenMayNotReadIsDropped() throws Exception {
        String client = "narrowed";
        try (RawMqtt m = RawMqtt.open(a.server().mqttPort())) {
            m.send(RawMqtt.connect(4, client, token("alice"), false, 0));
            assertThat(RawMqtt.sessionPresent(m.read())).isFalse();
            m.send(RawMqtt.subscribe(4, 1, 1, topic + "/open/#", topic + "/secret/#"));
            assertThat(m.read().type()).isEqualTo(RawMqtt.SUBACK);
            m.send(RawMqtt.disconnect(4));
            assertThat(m.closedWithin(Duration.ofSeconds(10))).isTrue();
        }
        awaitDisconnectedRecord("alice", client);
        kafka.send(topic, 0, "secret/k", "hidden");
        kafka.send(topic, 0, "open/k", "shown");
        // The same subject, a token that no longer reads secret/.
        String narrower = TestAuthenticator.token("alice", topic + "/open/*", "");
        try (RawMqtt m = RawMqtt.open(b.server().mqttPort())) {
            m.send(RawMqtt.connect(4, client, narrower, false, 0));
            assertThat(RawMqtt.sessionPresent(m.read())).isTrue();
            assertThat(readAndAck(m, 4, 1)).containsExactly("shown");
            m.send(RawMqtt.disconnect(4));
            assertThat(m.closedWithin(Duration.ofSeconds(10))).isTrue();
        }
        // Gone from the session, not just from that connection.
        Awaitility.await().atMost(Duration.ofSeconds(30)).until(() -> {
            JsonNode last = latest("alice", client);
            return last != null && last != TOMBSTONE && !last.path("connected").asBoolean(true);
        });
        JsonNode last = latest("alice", client);
        assertThat(last.path("filters")).hasSize(1);
        assertThat(last.path("filters").get(0).path("filter").asText()).isEqualTo(topic + "/open/#");
    }

    @Test
    void anotherSubjectsTokenCannotResumeTheSession() throws Exception {
        String client = "shared-id";
        try (RawMqtt c = RawMqtt.open(a.server().mqttPort())) {
            c.send(RawMqtt.connect(5, client, token("owner"), false, 3600));
            assertThat(RawMqtt.sessionPresent(c.read())).isFalse();
            c.send(RawMqtt.subscribe(5, 1, 1, topic + "/owned/#"));
            assertThat(c.read().type()).isEqualTo(RawMqtt.SUBACK);
            c.send(RawMqtt.disconnect(5));
            assertThat(c.closedWithin(Duration.ofSeconds(10))).isTrue();
        }
        awaitDisconnectedRecord("owner", client);
        kafka.send(topic, "owned/k", "for-the-owner");
        try (RawMqtt c = RawMqtt.open(b.server().mqttPort())) {
            c.send(RawMqtt.connect(5, client, token("intruder"), false, 3600));
            assertThat(RawMqtt.sessionPresent(c.read())).isFalse();
            // None of the owner's subscriptions: the next packet answers the ping, no message comes first.
            c.send(new byte[] {(byte) 0xC0, 0});
            assertThat(c.read().type()).isEqualTo(13);
            c.send(RawMqtt.disconnect(5));
        }
        try (RawMqtt c = RawMqtt.open(b.server().mqttPort())) {
            c.send(RawMqtt.connect(5, client, token("owner"), false, 3600));
            assertThat(RawMqtt.sessionPresent(c.read())).isTrue();
            assertThat(readAndAck(c, 5, 1)).containsExactly("for-the-owner");
        }
    }

    @Test
    void anExpiredSessionIsEndedAndStartsClean() throws Exception {
        String client = "short-lived";
        try (RawMqtt c = RawMqtt.open(a.server().mqttPort())) {
            c.send(RawMqtt.connect(5, client, token("alice"), false, 1));
            assertThat(RawMqtt.sessionPresent(c.read())).isFalse();
            c.send(RawMqtt.subscribe(5, 1, 1, topic + "/short/#"));
            assertThat(c.read().type()).isEqualTo(RawMqtt.SUBACK);
            c.send(RawMqtt.disconnect(5));
            assertThat(c.closedWithin(Duration.ofSeconds(10))).isTrue();
        }
        // The nodes end it once its expiry has passed: a tombstone, the session's last record.
        Awaitility.await().atMost(Duration.ofSeconds(30)).until(() -> latest("alice", client) == TOMBSTONE);
        try (RawMqtt c = RawMqtt.open(b.server().mqttPort())) {
            c.send(RawMqtt.connect(5, client, token("alice"), false, 60));
            assertThat(RawMqtt.sessionPresent(c.read())).isFalse();
        }
    }

    @Test
    void aCleanSessionEndsTheOneBeforeIt() throws Exception {
        String client = "cleaned";
        try (RawMqtt c = RawMqtt.open(a.server().mqttPort())) {
            c.send(RawMqtt.connect(4, client, token("alice"), false, 0));
            assertThat(RawMqtt.sessionPresent(c.read())).isFalse();
            c.send(RawMqtt.subscribe(4, 1, 1, topic + "/cleaned/#"));
            assertThat(c.read().type()).isEqualTo(RawMqtt.SUBACK);
            c.send(RawMqtt.disconnect(4));
            assertThat(c.closedWithin(Duration.ofSeconds(10))).isTrue();
        }
        awaitDisconnectedRecord("alice", client);
        try (RawMqtt c = RawMqtt.open(b.server().mqttPort())) {
            c.send(RawMqtt.connect(4, client, token("alice"), true, 0));
            assertThat(RawMqtt.sessionPresent(c.read())).isFalse();
            c.send(RawMqtt.disconnect(4));
        }
        Awaitility.await().atMost(Duration.ofSeconds(30)).until(() -> latest("alice", client) == TOMBSTONE);
        try (RawMqtt c = RawMqtt.open(a.server().mqttPort())) {
            c.send(RawMqtt.connect(4, client, token("alice"), false, 0));
            assertThat(RawMqtt.sessionPresent(c.read())).isFalse();
        }
    }

    @Test
    void aConnectionTakingTheSessionOnAnotherNodeEndsTheOneHoldingIt() throws Exception {
        String client = "taken";
        try (RawMqtt first = RawMqtt.open(a.server().mqttPort()); RawMqtt second = RawMqtt.open(b.server().mqttPort())) {
            first.send(RawMqtt.connect(5, client, token("alice"), false, 3600));
            assertThat(RawMqtt.sessionPresent(first.read())).isFalse();
            first.send(RawMqtt.subscribe(5, 1, 1, topic + "/taken/#"));
            assertThat(first.read().type()).isEqualTo(RawMqtt.SUBACK);
            // Its first record read back on the other node: wait for the subscription in it, then take the session.
            Awaitility.await().atMost(Duration.ofSeconds(30)).until(() -> {
                JsonNode last = latest("alice", client);
                return last != null && last.path("filters").size() == 1;
            });
            second.send(RawMqtt.connect(5, client, token("alice"), false, 3600));
            assertThat(RawMqtt.sessionPresent(second.read())).isTrue();
            RawMqtt.Packet disconnect = first.read();
            assertThat(disconnect.type()).isEqualTo(RawMqtt.DISCONNECT);
            assertThat(disconnect.reason(0)).isEqualTo(0x8E);
            assertThat(first.closedWithin(Duration.ofSeconds(10))).isTrue();
            // The session is the second connection's: it gets the messages.
            kafka.send(topic, "taken/k", "for-the-second");
            assertThat(readAndAck(second, 5, 1)).containsExactly("for-the-second");
        }
    }

    @Test
    void aSessionsTopicThatIsNotCompactedStopsStartUpNamingTheField() throws Exception {
        String deleting = kafka.createTopic(1);
        assertThatThrownBy(() -> MqttNodes.start(kafka, "node-sessions-bad", topic, """
                sessions:
                  maxExpiry: 1h
                  topic: %s
                """.formatted(deleting)))
                .isInstanceOf(ConfigException.class)
                .hasMessageContaining("mqtt.sessions.topic: topic " + deleting + " exists with cleanup.policy=delete");
    }

    // ---- helpers

    private static final JsonNode TOMBSTONE = JSON.createObjectNode();

    /** The latest record of the session in the sessions topic: its value, {@link #TOMBSTONE}, or null if none. */
    private static JsonNode latest(String subject, String client) throws Exception {
        byte[] key = JSON.writeValueAsBytes(JSON.createArrayNode().add(subject).add(client));
        JsonNode last = null;
        for (ConsumerRecord<byte[], byte[]> r : kafka.readAll(sessions)) {
            if (Arrays.equals(r.key(), key)) {
                last = r.value() == null ? TOMBSTONE : JSON.readTree(new String(r.value(), StandardCharsets.UTF_8));
            }
        }
        return last;
    }

    /** Waits for the record a DISCONNECT writes, so that the other node reads the session as it was left. */
    private static void awaitDisconnectedRecord(String subject, String client) {
        Awaitility.await().atMost(Duration.ofSeconds(30)).until(() -> {
            JsonNode last = latest(subject, client);
            return last != null && last != TOMBSTONE && !last.path("connected").asBoolean(true);
        });
    }

    private static List<RawMqtt.Packet> readPublishes(RawMqtt c, int version, int count) throws Exception {
        List<RawMqtt.Packet> got = new ArrayList<>();
        while (got.size() < count) {
            RawMqtt.Packet p = c.read();
            assertThat(p).as("a PUBLISH (%d of %d so far)", got.size(), count).isNotNull();
            if (p.type() == RawMqtt.PUBLISH) {
                got.add(p);
            }
        }
        return got;
    }

    private static List<String> readAndAck(RawMqtt c, int version, int count) throws Exception {
        List<String> payloads = new ArrayList<>();
        for (RawMqtt.Packet p : readPublishes(c, version, count)) {
            payloads.add(RawMqtt.payloadOf(p, version));
            c.send(RawMqtt.puback(RawMqtt.packetIdOf(p)));
        }
        return payloads;
    }
}
