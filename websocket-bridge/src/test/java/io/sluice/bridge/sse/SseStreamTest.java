package io.sluice.bridge.sse;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.extension.RegisterExtension;

import io.kroxylicious.testing.kafka.api.KafkaCluster;
import io.kroxylicious.testing.kafka.common.BrokerCluster;
import io.kroxylicious.testing.kafka.junit5ext.KafkaClusterExtension;
import io.sluice.bridge.auth.TestAuthenticator;
import io.sluice.bridge.protocol.ClientRequest;
import io.sluice.bridge.protocol.CloseCodes;
import io.sluice.bridge.server.BridgeFixture;
import io.sluice.bridge.server.KafkaHelper;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@code GET /ws/sse} read by {@code java.net.http}: the events and their ids, recovery from a {@code Last-Event-ID}
 * on another node (from its memory and from the Kafka log), token expiry and heartbeats. Real Kafka, real nodes
 * configured from YAML.
 */
@ExtendWith(KafkaClusterExtension.class)
class SseStreamTest {

    private static final String PAD = "p".repeat(400);

    @BrokerCluster(numBrokers = 1)
    static KafkaCluster cluster;

    @RegisterExtension
    static final KafkaHelper kafka = KafkaHelper.perClass(() -> cluster.getBootstrapServers());

    private static BridgeFixture node(String name, String sections) {
        return BridgeFixture.start(cluster.getBootstrapServers(), name, sections);
    }

    @Test
    void aStreamSendsConnectedSubscribedMessagesAndDeltasWithTheirPositionAsId() throws Exception {
        String topic = kafka.createTopic(1);
        String token = TestAuthenticator.token("sam", topic + "/*", "");
        try (BridgeFixture bridge = node("node-a", "topics: " + topic);
             SseClient stream = SseClient.open(bridge.port(), "endpoint=/" + topic + "/*&delta=true", token, null)) {
            assertThat(stream.status).isEqualTo(200);
            assertThat(stream.response.headers().firstValue("content-type")).hasValue("text/event-stream; charset=utf-8");
            assertThat(stream.response.headers().firstValue("cache-control")).hasValue("no-cache, no-store");
            assertThat(stream.response.headers().firstValue("x-accel-buffering")).hasValue("no");
            assertThat(stream.expect("connected").json().get("subject").asText()).isEqualTo("sam");
            assertThat(stream.firstLines().get(0)).isEqualTo("retry: 2000");
            SseClient.Event subscribed = stream.expect("subscribed");
            assertThat(subscribed.json().get("endpoint").asText()).isEqualTo("/" + topic + "/*");
            String epoch = subscribed.json().get("positions").get(0).get("epoch").asText();

            long first = kafka.send(topic, "k", "{\"n\":1,\"pad\":\"" + PAD + "\"}");
            long second = kafka.send(topic, "k", "{\"n\":2,\"pad\":\"" + PAD + "\"}");
            SseClient.Event message = stream.expect("message");
            assertThat(message.json().get("seq").asLong()).isEqualTo(first);
            assertThat(message.json().get("payload").get("n").asInt()).isEqualTo(1);
            assertThat(EventIds.decode(message.id(), 1, 4096)).containsExactly(List.of(new ClientRequest.Position(epoch, first)));
            SseClient.Event delta = stream.expect("delta");
            assertThat(delta.json().get("seq").asLong()).isEqualTo(second);
            assertThat(EventIds.decode(delta.id(), 1, 4096)).containsExactly(List.of(new ClientRequest.Position(epoch, second)));
            // The session metrics, labelled by transport.
            assertThat(bridge.metric("sluice_bridge_connections", "transport=\"sse\"")).isEqualTo(1);
            assertThat(bridge.metric("sluice_bridge_connections", "transport=\"websocket\"")).isZero();
            assertThat(bridge.metric("sluice_bridge_messages_out_total", "transport=\"sse\"")).isEqualTo(2);
            assertThat(bridge.metric("sluice_bridge_connections_opened_total", "transport=\"sse\"")).isEqualTo(1);
        }
    }

    /** JSON whitespace with raw CR, LF and CRLF in a record, which the WebSocket frame carries byte for byte. */
    static final String MULTILINE = "{\r\n  \"n\": 7,\r  \"text\": \"a\\r\\nb\",\n  \"list\": [1,\r\n2]\n}\r\n";

    /** Each raw line break is one space on the stream's one data line: one event, the same JSON. */
    @Test
    void aRecordWithRawLineBreaksInItsJsonIsOneEventWithTheSameJson() throws Exception {
        String topic = kafka.createTopic(1);
        String token = TestAuthenticator.token("sam", topic + "/*", "");
        try (BridgeFixture bridge = node("node-a", "topics: " + topic);
             SseClient stream = SseClient.open(bridge.port(), "endpoint=/" + topic + "/*", token, null)) {
            stream.expect("connected");
            stream.expect("subscribed");
            long seq = kafka.send(topic, "k", MULTILINE);
            long after = kafka.send(topic, "k", "{\"n\":8}");
            SseClient.Event message = stream.expect("message");
            assertThat(message.json().get("seq").asLong()).isEqualTo(seq);
            assertThat(message.json().get("payload")).isEqualTo(SseClient.JSON.readTree(MULTILINE));
            assertThat(message.data()).doesNotContain("\r", "\n");
            // The next event is the next record: nothing of the first spilled into the stream.
            SseClient.Event next = stream.expect("message");
            assertThat(next.json().get("seq").asLong()).isEqualTo(after);
        }
    }

    /** A position in an epoch no node reads (a recreated topic's old history): a gap event, and the id forgets it. */
    @Test
    void aPositionInAGoneEpochIsAGapEventWithAnId() throws Exception {
        String topic = kafka.createTopic(1);
        String token = TestAuthenticator.token("sam", topic + "/*", "");
        try (BridgeFixture bridge = node("node-a", "topics: " + topic)) {
            String gone = EventIds.encode(List.of(Map.of("gone-epoch", 41L)));
            try (SseClient stream = SseClient.open(bridge.port(), "endpoint=/" + topic + "/*", token, gone)) {
                stream.expect("connected");
                String epoch = stream.expect("subscribed").json().get("positions").get(0).get("epoch").asText();
                SseClient.Event gap = stream.expect("gap");
                assertThat(gap.json().get("epoch").asText()).isEqualTo("gone-epoch");
                assertThat(gap.json().get("fromSeq").asLong()).isEqualTo(42);
                assertThat(gap.json().get("reason").asText()).isEqualTo("unknown_epoch");
                assertThat(EventIds.decode(gap.id(), 1, 4096).get(0)).extracting(ClientRequest.Position::epoch).containsExactly(epoch);
            }
        }
    }

    /**
     * Read some, drop the connection, more is published, reconnect to another node with the last id: the received
     * (epoch, seq) sequence has every message once. From the other node's memory (it was running), and from the Kafka
     * log (a node started after the messages were published has none of them in memory).
     */
    @Test
    void resumingOnAnotherNodeFromMemoryOrTheKafkaLogMissesNothingAndRepeatsNothing() throws Exception {
        String topic = kafka.createTopic(2);
        String token = TestAuthenticator.token("ria", topic + "/*", "");
        String query = "endpoint=/" + topic + "/*";
        try (BridgeFixture a = node("node-a", "topics: " + topic); BridgeFixture b = node("node-b", "topics: " + topic)) {
            Set<String> sent = new HashSet<>();
            List<String> received = new ArrayList<>();
            String lastId;
            try (SseClient first = SseClient.open(a.port(), query, token, null)) {
                first.expect("connected");
                first.expect("subscribed");
                for (int i = 0; i < 8; i++) {
                    sent.add(send(topic, i));
                }
                List<SseClient.Event> events = first.positioned(8);
                events.forEach(e -> received.add(position(e)));
                lastId = events.get(7).id();
            }
            for (int i = 8; i < 20; i++) {
                sent.add(send(topic, i));
            }
            List<String> fromB = resume(b, query, token, lastId, 12);
            // resume() ended with a live message; it is owed to a client resuming from lastId from now on.
            String liveOnB = fromB.remove(fromB.size() - 1);
            assertThat(b.metric("sluice_bridge_recovery_requests_total", "source=\"cache\"")).isPositive();
            assertThat(concat(received, fromB)).doesNotHaveDuplicates().containsExactlyInAnyOrderElementsOf(sent);

            try (BridgeFixture c = node("node-c", "topics: " + topic)) {
                List<String> fromC = resume(c, query, token, lastId, 13);
                fromC.remove(fromC.size() - 1);
                assertThat(c.metric("sluice_bridge_recovery_requests_total", "source=\"kafka\"")).isPositive();
                sent.add(liveOnB);
                assertThat(concat(received, fromC)).doesNotHaveDuplicates().containsExactlyInAnyOrderElementsOf(sent);
            }
        }
    }

    /** The {@code expected} messages owed from {@code lastId}, then one published live after them. */
    private static List<String> resume(BridgeFixture node, String query, String token, String lastId, int expected) {
        try (SseClient resumed = SseClient.open(node.port(), query, token, lastId)) {
            assertThat(resumed.status).isEqualTo(200);
            resumed.expect("connected");
            resumed.expect("subscribed");
            List<SseClient.Event> events = resumed.positioned(expected);
            assertThat(events).extracting(SseClient.Event::type).containsOnly("message");
            List<String> out = new ArrayList<>();
            events.forEach(e -> out.add(position(e)));
            // Nothing more is owed: a message published now is the next event.
            String live;
            try {
                live = send(query.substring(query.indexOf('/') + 1, query.lastIndexOf('/')), 100 + (int) counter);
            }
            catch (Exception e) {
                throw new IllegalStateException(e);
            }
            assertThat(position(resumed.positioned(1).get(0))).isEqualTo(live);
            out.add(live);
            return out;
        }
    }

    @Test
    void anExpiringTokenIsWarnedThenTheStreamEndsWith4002AndQuietStreamsGetHeartbeats() throws Exception {
        String topic = kafka.createTopic(1);
        String token = TestAuthenticator.token("tia", Duration.ofSeconds(5), topic + "/*", "");
        try (BridgeFixture bridge = node("node-a", "topics: " + topic + "\nhttp:\n  heartbeat: 1s");
             SseClient stream = SseClient.open(bridge.port(), "endpoint=/" + topic + "/x", token, null)) {
            stream.expect("connected");
            stream.expect("subscribed");
            stream.expect("expiring");
            SseClient.Event close = stream.expect("close");
            assertThat(close.json().get("code").asInt()).isEqualTo(CloseCodes.TOKEN_EXPIRED);
            assertThat(close.json().get("reason").asText()).isEqualTo("token expired");
            assertThat(SseClient.isEnd(stream.next())).isTrue();
            assertThat(stream.comments()).as("heartbeats in 4 quiet seconds").isPositive();
        }
    }

    @Test
    void aNodeShuttingDownEndsItsStreamsWithACloseEvent() throws Exception {
        String topic = kafka.createTopic(1);
        String token = TestAuthenticator.token("sid", topic + "/*", "");
        BridgeFixture bridge = node("node-a", "topics: " + topic);
        try (SseClient stream = SseClient.open(bridge.port(), "endpoint=/" + topic + "/x", token, null)) {
            stream.expect("connected");
            stream.expect("subscribed");
            bridge.close();
            SseClient.Event close = stream.expect("close");
            assertThat(close.json().get("code").asInt()).isEqualTo(CloseCodes.GOING_AWAY);
            assertThat(SseClient.isEnd(stream.next())).isTrue();
        }
        finally {
            bridge.close();
        }
    }

    private static long counter;

    private static String send(String topic, int i) throws Exception {
        String key = "k" + (i % 5) + "-" + (counter++);
        long seq = kafka.send(topic, key, "{\"n\":" + i + "}");
        return String.valueOf(seq) + "@" + i;
    }

    private static String position(SseClient.Event e) {
        return e.json().get("seq").asLong() + "@" + e.json().get("payload").get("n").asInt();
    }

    private static List<String> concat(List<String> a, List<String> b) {
        List<String> all = new ArrayList<>(a);
        all.addAll(b);
        return all;
    }
}
