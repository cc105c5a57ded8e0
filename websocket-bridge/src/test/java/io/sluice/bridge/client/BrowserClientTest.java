package io.sluice.bridge.client;

import java.net.ServerSocket;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import io.kroxylicious.testing.kafka.api.KafkaCluster;
import io.kroxylicious.testing.kafka.common.BrokerCluster;
import io.kroxylicious.testing.kafka.junit5ext.KafkaClusterExtension;
import io.sluice.bridge.auth.TestAuthenticator;
import io.sluice.bridge.server.BridgeFixture;
import io.sluice.bridge.server.KafkaHelper;
import io.sluice.bridge.web.StaticContent;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The JavaScript client (client-js/sluice-bridge.js) in headless Chromium against a real bridge and real Kafka. The
 * bridge serves the client and the test page (src/test/resources/browser-test) itself, so the page's WebSocket goes
 * to the same host it was loaded from, as in production.
 */
@ExtendWith(KafkaClusterExtension.class)
class BrowserClientTest {

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final StaticContent PAGES = StaticContent.fromClasspath(StaticContent.CLIENT_JS, "browser-test");

    @BrokerCluster(numBrokers = 1)
    static KafkaCluster cluster;

    static HeadlessBrowser browser;
    static KafkaHelper kafka;

    @BeforeAll
    static void start() throws Exception {
        browser = HeadlessBrowser.launch();
        kafka = new KafkaHelper(cluster.getBootstrapServers());
    }

    @AfterAll
    static void stop() throws Exception {
        if (kafka != null) {
            kafka.close();
        }
        if (browser != null) {
            browser.close();
        }
    }

    private BridgeFixture bridge(String topic, String listen) {
        return BridgeFixture.on(cluster.getBootstrapServers(), "node-browser").listen(listen).serving(PAGES).start("topics: " + topic);
    }

    /** Opens the test page from the bridge and connects with tokens handed out in turn by the page's token provider. */
    private void connect(BridgeFixture bridge, String... tokens) throws Exception {
        browser.open("http://127.0.0.1:" + bridge.port() + "/test.html", "window.harness !== undefined");
        assertThat(browser.eval("harness.start(" + JSON.writeValueAsString(tokens) + ")").asText()).isEqualTo("alice");
    }

    private static String everything(String topic) {
        return TestAuthenticator.token("alice", topic + "/*", topic + "/*");
    }

    private static String js(String s) throws Exception {
        return JSON.writeValueAsString(s);
    }

    private static JsonNode waitFor(String endpoint, int n) throws Exception {
        JsonNode received = browser.eval("harness.waitFor(" + js(endpoint) + ", " + n + ")");
        assertThat(received.size()).as("messages on %s: %s", endpoint, received).isEqualTo(n);
        return received;
    }

    @Test
    void exactAndWildcardSubscriptionsReceiveJsonTextBinaryAndTombstones() throws Exception {
        String topic = kafka.createTopic(1);
        try (BridgeFixture bridge = bridge(topic, "127.0.0.1:0")) {
            connect(bridge, everything(topic));
            assertThat(browser.eval("harness.subscribe(" + js("/" + topic + "/live/football") + ")").asBoolean()).isTrue();
            assertThat(browser.eval("harness.subscribe(" + js("/" + topic + "/news/*") + ")").asBoolean()).isTrue();

            kafka.send(topic, "live/football", "{\"home\": 1, \"away\": 0}");
            kafka.send(topic, "live/tennis", "{\"set\": 1}");
            kafka.send(topic, "news/a", "hello \u00e9");
            kafka.send(topic, "news/b", new byte[] {0, 1, (byte) 0xff, (byte) 0xc3, 0x28});
            kafka.send(topic, "news/c", (byte[]) null);

            JsonNode football = waitFor("/" + topic + "/live/football", 1).get(0);
            assertThat(football.get("format").asText()).isEqualTo("json");
            assertThat(football.get("payload")).isEqualTo(JSON.readTree("{\"home\":1,\"away\":0}"));
            JsonNode news = waitFor("/" + topic + "/news/*", 3);
            assertThat(news).extracting(m -> m.get("endpoint").asText())
                    .containsExactly("/" + topic + "/news/a", "/" + topic + "/news/b", "/" + topic + "/news/c");
            assertThat(news).extracting(m -> m.get("format").asText()).containsExactly("text", "base64", "none");
            assertThat(news.get(0).get("payload").asText()).isEqualTo("hello \u00e9");
            assertThat(news.get(1).get("payload")).isEqualTo(JSON.readTree("{\"bytes\":[0,1,255,195,40]}"));
            assertThat(news.get(2).get("payload").isNull()).isTrue();
        }
    }

    @Test
    void publishResolvesWithTheOffsetAndRejectsWithTheServersError() throws Exception {
        String topic = kafka.createTopic(1);
        try (BridgeFixture bridge = bridge(topic, "127.0.0.1:0")) {
            connect(bridge, TestAuthenticator.token("alice", topic + "/*", topic + "/chat/*"));
            String room = "/" + topic + "/chat/room-1";
            browser.eval("harness.subscribe(" + js(room) + ")");

            JsonNode ack = browser.eval("harness.publish(" + js(room) + ", {text: 'hi', n: [1, 2]})");
            JsonNode binaryAck = browser.eval("harness.publish(" + js(room) + ", new Uint8Array([0, 128, 255]))");
            JsonNode received = waitFor(room, 2);
            assertThat(received).extracting(m -> m.get("seq").asLong()).containsExactly(ack.get("seq").asLong(), binaryAck.get("seq").asLong());
            assertThat(received.get(0).get("epoch")).isEqualTo(ack.get("epoch"));
            assertThat(received.get(0).get("payload")).isEqualTo(JSON.readTree("{\"text\":\"hi\",\"n\":[1,2]}"));
            assertThat(received.get(1).get("payload")).isEqualTo(JSON.readTree("{\"bytes\":[0,128,255]}"));

            JsonNode refused = browser.eval("harness.publish(" + js("/" + topic + "/news/x") + ", 'nope')");
            assertThat(refused.get("error").asText()).isEqualTo("forbidden");
        }
    }

    @Test
    void afterTheNodeGoesAwayTheClientReconnectsAndRecoversWithNoGapAndNoDuplicate() throws Exception {
        String topic = kafka.createTopic(2);
        String listen = "127.0.0.1:" + freePort();
        String prefix = "/" + topic + "/k/*";
        Map<Integer, List<Long>> sent = new TreeMap<>();
        BridgeFixture first = bridge(topic, listen);
        try {
            connect(first, everything(topic));
            browser.eval("harness.subscribe(" + js(prefix) + ")");
            produce(topic, 0, 6, sent);
            waitFor(prefix, 6);
        } finally {
            first.close();
        }
        assertThat(browser.eval("harness.waitForEvent('disconnected')").asInt()).isEqualTo(1);
        produce(topic, 6, 16, sent);
        try (BridgeFixture second = bridge(topic, listen)) {
            assertThat(browser.eval("harness.waitForEvent('connected', 2)").asInt()).isEqualTo(2);
            produce(topic, 16, 20, sent);
            JsonNode received = waitFor(prefix, 20);

            Map<Integer, List<Long>> got = new TreeMap<>();
            for (JsonNode m : received) {
                String epoch = m.get("epoch").asText();
                got.computeIfAbsent(Integer.parseInt(epoch.substring(epoch.lastIndexOf('-') + 1)), p -> new ArrayList<>()).add(m.get("seq").asLong());
            }
            assertThat(got).isEqualTo(sent);
            JsonNode stats = browser.eval("harness.stats()");
            assertThat(stats.get("duplicatesDropped").asInt()).isZero();
            assertThat(stats.get("connects").asInt()).isEqualTo(2);
        }
    }

    private static void produce(String topic, int from, int to, Map<Integer, List<Long>> sent) throws Exception {
        for (int i = from; i < to; i++) {
            int partition = i % 2;
            sent.computeIfAbsent(partition, p -> new ArrayList<>()).add(kafka.send(topic, partition, "k/" + i, "{\"i\": " + i + "}"));
        }
    }

    private static int freePort() throws Exception {
        try (ServerSocket socket = new ServerSocket(0)) {
            return socket.getLocalPort();
        }
    }

    @Test
    void jsonPatchDeltasReassembleEveryDocumentExactly() throws Exception {
        String topic = kafka.createTopic(1);
        List<String> documents = List.of(
                "{\"score\":{\"home\":0,\"away\":0},\"events\":[],\"a/b\":1,\"m~n\":\"x\",\"long\":\"" + "x".repeat(200) + "\"}",
                "{\"score\":{\"home\":1,\"away\":0},\"events\":[{\"min\":3,\"who\":\"A\"}],\"a/b\":1,\"m~n\":\"x\",\"long\":\"" + "x".repeat(200) + "\"}",
                "{\"score\":{\"home\":1,\"away\":1},\"events\":[{\"min\":3,\"who\":\"A\"},{\"min\":9,\"who\":\"B\"}],\"m~n\":\"y\",\"long\":\"" + "x".repeat(200) + "\"}",
                "{\"score\":{\"home\":1,\"away\":1},\"events\":[{\"min\":9,\"who\":\"B\"}],\"m~n\":\"y\",\"new\":{\"deep\":[1,[2,3]]},\"long\":\"" + "x".repeat(200) + "\"}",
                "{\"score\":{\"home\":2,\"away\":1},\"events\":[{\"min\":9,\"who\":\"B\"},null,true],\"m~n\":\"y\",\"new\":{\"deep\":[[2,3],1]},\"long\":\"" + "x".repeat(200) + "\"}");
        try (BridgeFixture bridge = bridge(topic, "127.0.0.1:0")) {
            connect(bridge, everything(topic));
            String endpoint = "/" + topic + "/match-7";
            browser.eval("harness.subscribe(" + js(endpoint) + ", {delta: true})");
            for (String document : documents) {
                kafka.send(topic, "match-7", document);
            }
            JsonNode received = waitFor(endpoint, documents.size());
            for (int i = 0; i < documents.size(); i++) {
                assertThat(received.get(i).get("payload")).as("document %d", i).isEqualTo(JSON.readTree(documents.get(i)));
            }
            assertThat(received).filteredOn(m -> m.get("delta").asBoolean()).as("messages that came as deltas").isNotEmpty();

            // A late subscriber (a fresh page) starts from the snapshot (the latest document), and deltas build on it.
            connect(bridge, everything(topic));
            String prefix = "/" + topic + "/*";
            browser.eval("harness.subscribe(" + js(prefix) + ", {delta: true, snapshot: true})");
            JsonNode snapshot = waitFor(prefix, 1).get(0);
            assertThat(snapshot.get("snapshot").asBoolean()).isTrue();
            assertThat(snapshot.get("payload")).isEqualTo(JSON.readTree(documents.get(documents.size() - 1)));
            String next = documents.get(documents.size() - 1).replace("\"home\":2", "\"home\":3");
            kafka.send(topic, "match-7", next);
            JsonNode afterSnapshot = waitFor(prefix, 2).get(1);
            assertThat(afterSnapshot.get("payload")).isEqualTo(JSON.readTree(next));
            assertThat(afterSnapshot.get("delta").asBoolean()).isTrue();
            assertThat(browser.eval("harness.events.filter(e => e.event === 'error').length").asInt()).isZero();
        }
    }

    @Test
    void anExpiringTokenIsRefreshedFromTheProviderAndTheConnectionOutlivesIt() throws Exception {
        String topic = kafka.createTopic(1);
        try (BridgeFixture bridge = bridge(topic, "127.0.0.1:0")) {
            // The bridge warns 1 s before expiry (BridgeFixture's auth.expiryWarning); the second token never expires.
            connect(bridge, TestAuthenticator.token("alice", Duration.ofSeconds(3), topic + "/*", ""), everything(topic));
            Instant firstExpiry = Instant.now().plusSeconds(3);
            String endpoint = "/" + topic + "/x";
            browser.eval("harness.subscribe(" + js(endpoint) + ")");

            assertThat(browser.eval("harness.waitForEvent('refreshed')").asInt()).isEqualTo(1);
            await().atMost(Duration.ofSeconds(30)).until(() -> Instant.now().isAfter(firstExpiry.plusSeconds(1)));
            long seq = kafka.send(topic, "x", "{\"after\": \"expiry\"}");

            assertThat(waitFor(endpoint, 1).get(0).get("seq").asLong()).isEqualTo(seq);
            JsonNode stats = browser.eval("harness.stats()");
            assertThat(stats.get("connects").asInt()).isEqualTo(1);
            assertThat(stats.get("state").asText()).isEqualTo("connected");
            assertThat(browser.eval("harness.tokenCalls").asInt()).isEqualTo(2);
            assertThat(browser.eval("harness.events.filter(e => e.event === 'disconnected').length").asInt()).isZero();
        }
    }

    @Test
    void subscribesRefusedForNowWithRateLimitedAreRetriedUntilEveryOneIsReady() throws Exception {
        String topic = kafka.createTopic(1);
        String config = "topics: " + topic + "\nrequests:\n  subscribesPerSecond: 4\n  subscribeBurst: 1\n";
        try (BridgeFixture bridge = BridgeFixture.on(cluster.getBootstrapServers(), "node-browser").serving(PAGES).start(config)) {
            connect(bridge, everything(topic));
            List<String> endpoints = List.of("/" + topic + "/a", "/" + topic + "/b", "/" + topic + "/c", "/" + topic + "/d");
            JsonNode ready = browser.eval("Promise.all(" + JSON.writeValueAsString(endpoints) + ".map((e) => harness.subscribe(e)))");
            assertThat(ready).hasSize(4).allMatch(JsonNode::asBoolean, "subscribed");
            assertThat(bridge.metric("sluice_bridge_requests_refused_total", "reason=\"subscribe_rate\"")).isGreaterThanOrEqualTo(3);

            for (String endpoint : endpoints) {
                kafka.send(topic, endpoint.substring(endpoint.lastIndexOf('/') + 1), "to " + endpoint);
            }
            for (String endpoint : endpoints) {
                assertThat(waitFor(endpoint, 1).get(0).get("payload").asText()).isEqualTo("to " + endpoint);
            }
            assertThat(browser.eval("harness.events.filter((e) => e.event === 'error').length").asInt()).isZero();
        }
    }
}
