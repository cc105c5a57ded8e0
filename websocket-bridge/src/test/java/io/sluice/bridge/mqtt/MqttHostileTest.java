package io.sluice.bridge.mqtt;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import org.apache.kafka.clients.producer.ProducerRecord;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import io.sluice.bridge.auth.TestAuthenticator;
import io.sluice.bridge.server.BridgeFixture;
import io.sluice.bridge.server.KafkaHelper;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Hostile MQTT clients, bytes as they send them ({@link RawMqtt}), against one node with small limits
 * (docs/security.md#mqtt): each attack is bounded, and a well-behaved client beside it is served.
 */
class MqttHostileTest {

    private static final int MAX_PACKET = 4096;
    private static final int SESSIONS_PER_SUBJECT = 3;

    // The test kit's one broker for this JVM: the MQTT classes need a broker, not one each.
    @RegisterExtension
    static final KafkaHelper kafka = KafkaHelper.perClass(MqttNodes::sharedKafka);

    private static String topic;
    private static BridgeFixture bridge;
    private static String token;

    @BeforeAll
    static void start() throws Exception {
        topic = kafka.createTopic(1);
        token = TestAuthenticator.token("device", topic + "/*", topic + "/*");
        bridge = BridgeFixture.on(kafka.bootstrap(), "node-hostile")
                .server("""
                        maxSubscriptionsPerConnection: 10
                        socketSendBufferBytes: 8192
                        """)
                .start("""
                        topics: %s
                        connections:
                          handshakeTimeout: 2s
                          maxHandshakesPerIp: 3
                        requests:
                          subscribeBurst: 5
                          subscribesPerSecond: 1
                        outbound:
                          highWaterMarkBytes: 65536
                          lowWaterMarkBytes: 32768
                          maxBytes: 262144
                          maxSlowTime: 3s
                        mqtt:
                          enabled: true
                          listen: "127.0.0.1:0"
                          maxPacketBytes: %d
                          maxInflight: 4
                          maxTopicAliases: 2
                          sessions:
                            maxExpiry: 1h
                            topic: %s
                            partitions: 1
                            maxPerSubject: %d
                        """.formatted(topic, MAX_PACKET, KafkaHelper.newTopicName(), SESSIONS_PER_SUBJECT));
    }

    @AfterAll
    static void stop() {
        bridge.close();
    }

    private static int port() {
        return bridge.server().mqttPort();
    }

    /** A client that reads: connected (CONNACK 0) and subscribed to {@code filter} at QoS 0. */
    private static RawMqtt subscriber(String source, String filter) throws Exception {
        RawMqtt c = RawMqtt.open(source, port(), 0);
        c.send(RawMqtt.connect(5, "ok-" + System.nanoTime(), token));
        RawMqtt.Packet connAck = c.read();
        assertThat(connAck.type()).isEqualTo(RawMqtt.CONNACK);
        assertThat(connAck.reason(1)).isZero();
        c.send(RawMqtt.subscribe(5, 1, 0, filter));
        assertThat(c.read().type()).isEqualTo(RawMqtt.SUBACK);
        return c;
    }

    private static final byte[] END = "END".getBytes(StandardCharsets.US_ASCII);

    /**
     * Reads {@code client} on a thread of its own until a PUBLISH whose payload ends with {@link #END} (the last record
     * of a burst: a burst bigger than the high-water mark is conflated for everyone, by design) and then checks the
     * connection still answers a PINGREQ; true when both happened.
     */
    private static CompletableFuture<Boolean> servedToTheEnd(RawMqtt client) {
        return CompletableFuture.supplyAsync(() -> {
            try {
                for (RawMqtt.Packet m = client.read(); m != null; m = client.read()) {
                    byte[] body = m.body();
                    if (m.type() == RawMqtt.PUBLISH && body.length >= 3
                            && java.util.Arrays.equals(body, body.length - 3, body.length, END, 0, 3)) {
                        client.send(new byte[] {(byte) 0xC0, 0});
                        RawMqtt.Packet pong = next(client, 13);
                        return pong != null && pong.type() == 13;
                    }
                }
                return false;
            }
            catch (java.io.IOException e) {
                return false;
            }
        });
    }

    /** {@code count} records of {@code value} for the keys {@code key(i)}, the last one's value ending with END. */
    private static void burst(int count, java.util.function.IntFunction<String> key, int valueBytes) throws Exception {
        List<ProducerRecord<byte[], byte[]>> records = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            byte[] value = new byte[valueBytes];
            java.util.Arrays.fill(value, (byte) 'v');
            if (i == count - 1) {
                System.arraycopy(END, 0, value, valueBytes - 3, 3);
            }
            records.add(new ProducerRecord<>(topic, key.apply(i).getBytes(StandardCharsets.UTF_8), value));
        }
        kafka.sendAll(records);
    }

    /** The next packet of {@code type}, skipping PUBLISHes (retained messages may come before a SUBACK). */
    private static RawMqtt.Packet next(RawMqtt client, int type) throws java.io.IOException {
        RawMqtt.Packet p;
        do {
            p = client.read();
        }
        while (p != null && p.type() == RawMqtt.PUBLISH && type != RawMqtt.PUBLISH);
        return p;
    }

    @Test
    void aFloodOfPersistentSessionsFromOneSubjectIsBoundedWhileOthersAreServed() throws Exception {
        String flooder = TestAuthenticator.token("flooder", topic + "/*", topic + "/*");
        List<Integer> codes = new ArrayList<>();
        for (int i = 0; i < 4 * SESSIONS_PER_SUBJECT; i++) {
            try (RawMqtt c = RawMqtt.open(port())) {
                // Each a new client id, each asking for a session that outlives it.
                c.send(RawMqtt.connect(5, "flood-" + i, flooder, false, 3600));
                RawMqtt.Packet connAck = c.read();
                assertThat(connAck.type()).isEqualTo(RawMqtt.CONNACK);
                codes.add(connAck.reason(1));
                if (connAck.reason(1) == 0) {
                    c.send(RawMqtt.disconnect(5));
                }
                assertThat(c.closedWithin(Duration.ofSeconds(10))).isTrue();
            }
        }
        assertThat(codes.subList(0, SESSIONS_PER_SUBJECT)).containsOnly(0);
        assertThat(codes.subList(SESSIONS_PER_SUBJECT, codes.size())).containsOnly(Reasons.QUOTA_EXCEEDED);
        // The subject's own sessions still resume, and another subject gets one of its own.
        try (RawMqtt c = RawMqtt.open(port())) {
            c.send(RawMqtt.connect(5, "flood-0", flooder, false, 3600));
            RawMqtt.Packet connAck = c.read();
            assertThat(connAck.reason(1)).isZero();
            assertThat(RawMqtt.sessionPresent(connAck)).isTrue();
        }
        try (RawMqtt c = RawMqtt.open(port())) {
            c.send(RawMqtt.connect(5, "flood-0", token, false, 3600));
            RawMqtt.Packet connAck = c.read();
            assertThat(connAck.reason(1)).isZero();
            assertThat(RawMqtt.sessionPresent(connAck)).isFalse();
        }
    }

    @Test
    void aStoppingNodeTellsMqtt5ClientsItIsShuttingDownAndClosesTheOthers() throws Exception {
        String own = kafka.createTopic(1);
        BridgeFixture node = MqttNodes.start(kafka, "node-stopping", own, "");
        try (RawMqtt v5 = RawMqtt.open(node.server().mqttPort()); RawMqtt v3 = RawMqtt.open(node.server().mqttPort());
             RawMqtt silent = RawMqtt.open(node.server().mqttPort())) {
            v5.send(RawMqtt.connect(5, "stop-5", token.replace(topic, own)));
            assertThat(v5.read().reason(1)).isZero();
            v3.send(RawMqtt.connect(4, "stop-3", token.replace(topic, own)));
            assertThat(v3.read().type()).isEqualTo(RawMqtt.CONNACK);
            node.close();
            RawMqtt.Packet disconnect = v5.read();
            assertThat(disconnect.type()).isEqualTo(RawMqtt.DISCONNECT);
            assertThat(disconnect.reason(0)).isEqualTo(Reasons.SERVER_SHUTTING_DOWN);
            assertThat(v5.closedWithin(Duration.ofSeconds(5))).isTrue();
            assertThat(v3.closedWithin(Duration.ofSeconds(5))).isTrue();
            assertThat(silent.closedWithin(Duration.ofSeconds(5))).isTrue();
        }
        finally {
            node.close();
        }
    }

    @Test
    void malformedAndOversizedRemainingLengthsCloseWithoutBuffering() throws Exception {
        double before = bridge.metric("sluice_bridge_messages_too_large_total", "stage=\"before_connect\"");
        // Five length bytes: MQTT allows four.
        try (RawMqtt c = RawMqtt.open(port())) {
            c.send(new byte[] {0x10, (byte) 0xff, (byte) 0xff, (byte) 0xff, (byte) 0xff, 0x7f});
            assertThat(c.closedWithin(Duration.ofSeconds(5))).isTrue();
        }
        // A CONNECT announcing 256 MiB: refused on its header, nothing of it buffered.
        try (RawMqtt c = RawMqtt.open(port())) {
            c.send(new byte[] {0x10, (byte) 0xff, (byte) 0xff, (byte) 0xff, 0x7f, 0, 4, 'M', 'Q', 'T', 'T'});
            assertThat(c.closedWithin(Duration.ofSeconds(5))).isTrue();
        }
        assertThat(bridge.metric("sluice_bridge_messages_too_large_total", "stage=\"before_connect\"")).isEqualTo(before + 1);
        // Connected: a PUBLISH one byte over mqtt.maxPacketBytes gets DISCONNECT 0x95 (packet too large) and the close.
        try (RawMqtt c = RawMqtt.open(port())) {
            c.send(RawMqtt.connect(5, "big", token));
            assertThat(c.read().reason(1)).isZero();
            c.send(new byte[] {0x30, (byte) 0x81, 0x20});
            RawMqtt.Packet disconnect = c.read();
            assertThat(disconnect.type()).isEqualTo(RawMqtt.DISCONNECT);
            assertThat(disconnect.reason(0)).isEqualTo(Reasons.PACKET_TOO_LARGE);
            assertThat(c.closedWithin(Duration.ofSeconds(5))).isTrue();
        }
        // A first packet that is not CONNECT closes the connection.
        try (RawMqtt c = RawMqtt.open(port())) {
            c.send(RawMqtt.subscribe(4, 1, 0, topic + "/#"));
            assertThat(c.closedWithin(Duration.ofSeconds(5))).isTrue();
        }
    }

    @Test
    void connectionsThatNeverConnectAreBoundedPerAddressAndClosedAtTheDeadlineWhileAnotherAddressIsServed() throws Exception {
        double refusedBefore = bridge.metric("sluice_bridge_connections_refused_total", "reason=\"max_handshakes_per_ip\"");
        double timeoutsBefore = bridge.metric("sluice_bridge_handshake_timeouts_total", "");
        List<RawMqtt> flood = new ArrayList<>();
        try {
            for (int i = 0; i < 6; i++) {
                flood.add(RawMqtt.open("127.0.0.3", port(), 0));
            }
            // Meanwhile a client from another address connects and subscribes.
            try (RawMqtt ok = subscriber("127.0.0.4", topic + "/flood")) {
                assertThat(ok).isNotNull();
            }
            long closedAtOnce = 0;
            for (RawMqtt c : flood) {
                if (c.closedWithin(Duration.ofSeconds(6))) {
                    closedAtOnce++;
                }
            }
            assertThat(closedAtOnce).as("every connection that never sent CONNECT is closed").isEqualTo(6);
            assertThat(bridge.metric("sluice_bridge_connections_refused_total", "reason=\"max_handshakes_per_ip\"")).isEqualTo(refusedBefore + 3);
            assertThat(bridge.metric("sluice_bridge_handshake_timeouts_total", "")).isEqualTo(timeoutsBefore + 3);
        }
        finally {
            for (RawMqtt c : flood) {
                c.close();
            }
        }
    }

    @Test
    void aSubscriptionFloodIsRateLimitedAndCappedPerConnection() throws Exception {
        try (RawMqtt c = RawMqtt.open(port())) {
            c.send(RawMqtt.connect(5, "flood", token));
            assertThat(c.read().reason(1)).isZero();
            String[] filters = new String[20];
            for (int i = 0; i < filters.length; i++) {
                filters[i] = topic + "/s" + i;
            }
            c.send(RawMqtt.subscribe(5, 7, 1, filters));
            RawMqtt.Packet subAck = c.read();
            assertThat(subAck.type()).isEqualTo(RawMqtt.SUBACK);
            List<Integer> codes = new ArrayList<>();
            // Packet id (2), properties length (1, empty), then one code per filter.
            for (int i = 3; i < subAck.body().length; i++) {
                codes.add(subAck.body()[i] & 0xff);
            }
            // requests.subscribeBurst (5) granted at once, the rest refused with 0x97 (quota exceeded).
            assertThat(codes).hasSize(20);
            assertThat(codes.subList(0, 5)).containsOnly(1);
            assertThat(codes.subList(5, 20)).containsOnly(Reasons.QUOTA_EXCEEDED);
        }
        // Filters riding on a bridge subscription already made (T/+/rN rides on T/#'s /T/*) take no subscribe from the
        // rate, but still count against server.maxSubscriptionsPerConnection (10).
        try (RawMqtt c = RawMqtt.open(port())) {
            c.send(RawMqtt.connect(5, "riders", token));
            assertThat(c.read().reason(1)).isZero();
            c.send(RawMqtt.subscribe(5, 1, 0, topic + "/#"));
            assertThat(next(c, RawMqtt.SUBACK).reason(3)).isZero();
            String[] riders = new String[10];
            for (int i = 0; i < riders.length; i++) {
                riders[i] = topic + "/+/r" + i;
            }
            c.send(RawMqtt.subscribe(5, 2, 0, riders));
            RawMqtt.Packet riderAck = next(c, RawMqtt.SUBACK);
            List<Integer> codes = new ArrayList<>();
            for (int i = 3; i < riderAck.body().length; i++) {
                codes.add(riderAck.body()[i] & 0xff);
            }
            assertThat(codes.subList(0, 9)).containsOnly(0);
            assertThat(codes.get(9)).isEqualTo(Reasons.QUOTA_EXCEEDED);
        }
    }

    @Test
    void topicAliasAbuseIsDisconnected() throws Exception {
        byte[] payload = "x".getBytes(StandardCharsets.UTF_8);
        // An alias over the Topic Alias Maximum (2) told in CONNACK.
        try (RawMqtt c = RawMqtt.open(port())) {
            c.send(RawMqtt.connect(5, "alias-1", token));
            assertThat(c.read().reason(1)).isZero();
            c.send(RawMqtt.publish(5, topic + "/a", 0, 0, payload, 3));
            RawMqtt.Packet disconnect = c.read();
            assertThat(disconnect.type()).isEqualTo(RawMqtt.DISCONNECT);
            assertThat(disconnect.reason(0)).isEqualTo(Reasons.TOPIC_ALIAS_INVALID);
        }
        // An alias used before it was set: a protocol error.
        try (RawMqtt c = RawMqtt.open(port())) {
            c.send(RawMqtt.connect(5, "alias-2", token));
            assertThat(c.read().reason(1)).isZero();
            c.send(RawMqtt.publish(5, "", 0, 0, payload, 1));
            RawMqtt.Packet disconnect = c.read();
            assertThat(disconnect.type()).isEqualTo(RawMqtt.DISCONNECT);
            assertThat(disconnect.reason(0)).isEqualTo(Reasons.PROTOCOL_ERROR);
        }
        // Set, then reused with an empty topic: published to the aliased topic.
        try (RawMqtt c = RawMqtt.open(port())) {
            c.send(RawMqtt.connect(5, "alias-3", token));
            assertThat(c.read().reason(1)).isZero();
            c.send(RawMqtt.publish(5, topic + "/aliased", 1, 1, payload, 2));
            c.send(RawMqtt.publish(5, "", 1, 2, payload, 2));
            assertThat(c.read().type()).isEqualTo(RawMqtt.PUBACK);
            RawMqtt.Packet second = c.read();
            assertThat(second.type()).isEqualTo(RawMqtt.PUBACK);
            assertThat(second.reason(2)).isZero();
        }
        assertThat(kafka.readAll(topic).stream().filter(r -> r.key() != null && new String(r.key(), StandardCharsets.UTF_8).equals("aliased")))
                .hasSize(2);
    }

    @Test
    void qos1DeliveriesNeverAcknowledgedFillTheWindowThenTheOutboundLimitAndCloseWhileOthersAreServed() throws Exception {
        String key = "qos1";
        try (RawMqtt victim = subscriber("127.0.0.5", topic + "/" + key);
             RawMqtt attacker = RawMqtt.open("127.0.0.6", port(), 0)) {
            attacker.send(RawMqtt.connect(5, "no-acks", token));
            assertThat(attacker.read().reason(1)).isZero();
            attacker.send(RawMqtt.subscribe(5, 1, 1, topic + "/" + key));
            assertThat(attacker.read().type()).isEqualTo(RawMqtt.SUBACK);
            CompletableFuture<Boolean> victimServed = servedToTheEnd(victim);
            burst(200, i -> key, 2048);
            int publishes = 0;
            RawMqtt.Packet p;
            while ((p = attacker.read()) != null && p.type() == RawMqtt.PUBLISH) {
                publishes++;
            }
            // The window (mqtt.maxInflight 4), then, with 200 x 2 KiB waiting past outbound.maxBytes (256 KiB), closed.
            assertThat(publishes).isEqualTo(4);
            assertThat(p).isNotNull();
            assertThat(p.type()).isEqualTo(RawMqtt.DISCONNECT);
            assertThat(p.reason(0)).isEqualTo(Reasons.QUOTA_EXCEEDED);
            assertThat(victimServed.get(30, TimeUnit.SECONDS)).as("the other subscriber got the last record and answers").isTrue();
        }
    }

    @Test
    void aDeviceThatNeverReadsIsClosedByTheSlowClientRulesWhileOthersAreServed() throws Exception {
        String key = "slow";
        double before = bridge.metric("sluice_bridge_slow_client_closes_total", "");
        // The other client reads one of the endpoints (a burst over the outbound limits on all 400 would close it too).
        try (RawMqtt victim = subscriber("127.0.0.7", topic + "/" + key + "/399");
             RawMqtt stuck = RawMqtt.open("127.0.0.8", port(), 4096)) {
            stuck.send(RawMqtt.connect(4, "never-reads", token));
            assertThat(stuck.read().type()).isEqualTo(RawMqtt.CONNACK);
            stuck.send(RawMqtt.subscribe(4, 1, 0, topic + "/" + key + "/#"));
            assertThat(stuck.read().type()).isEqualTo(RawMqtt.SUBACK);
            CompletableFuture<Boolean> victimServed = servedToTheEnd(victim);
            // Many endpoints, so that conflation (latest per endpoint) keeps a lot and outbound.maxBytes is reached.
            burst(400, i -> key + "/" + i, 8192);
            assertThat(victimServed.get(30, TimeUnit.SECONDS)).as("the other subscriber got the last record and answers").isTrue();
            Awaitility.await().atMost(Duration.ofSeconds(20))
                    .until(() -> bridge.metric("sluice_bridge_slow_client_closes_total", "") > before);
            assertThat(stuck.closedWithin(Duration.ofSeconds(20))).isTrue();
        }
    }
}
