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

import org.apache.avro.Schema;
import org.apache.avro.generic.GenericData;
import org.apache.avro.generic.GenericRecord;
import org.apache.kafka.clients.consumer.ConsumerRecord;

import io.kroxylicious.testing.kafka.api.KafkaCluster;
import io.kroxylicious.testing.kafka.common.BrokerCluster;
import io.kroxylicious.testing.kafka.junit5ext.KafkaClusterExtension;
import io.sluice.bridge.auth.TestAuthenticator;
import io.sluice.format.AvroBinary;
import io.sluice.format.registry.RegistryStandIn;
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

    // ---- filters, field lists and decoded values (docs/bridge-client-js.md, docs/bridge-filters.md)

    private static final String BUYS_OVER_100_IN_EUROPE = "{all: [{eq: ['/value/side', 'buy']}, {gt: ['/value/price', 100]},"
            + " {in: ['/headers/region', ['eu', 'uk']]}]}";

    private static String order(String side, int price, String sym) {
        return "{\"side\":\"" + side + "\",\"price\":" + price + ",\"sym\":\"" + sym + "\",\"qty\":5,\"quote\":{\"bid\":"
                + (price - 1) + ",\"ask\":" + (price + 1) + "}}";
    }

    @Test
    void aFilteredAndProjectedSubscriptionReceivesExactlyTheSelectedRecordsWithOnlyTheListedFields() throws Exception {
        String topic = kafka.createTopic(1);
        try (BridgeFixture bridge = bridge(topic, "127.0.0.1:0")) {
            connect(bridge, everything(topic));
            String prefix = "/" + topic + "/*";
            assertThat(browser.eval("harness.subscribe(" + js(prefix) + ", {filter: " + BUYS_OVER_100_IN_EUROPE
                    + ", fields: ['/price', '/quote/bid', '/nope']})").asBoolean()).isTrue();

            List<Long> selected = new ArrayList<>();
            List<JsonNode> projections = new ArrayList<>();
            String[][] records = {
                    {"buy", "120", "eu"}, {"sell", "130", "eu"}, {"buy", "90", "eu"}, {"buy", "150", "us"},
                    {"buy", "101", "uk"}, {"buy", "100", "eu"}, {"buy", "200", "eu"}};
            for (int i = 0; i < records.length; i++) {
                int price = Integer.parseInt(records[i][1]);
                long seq = kafka.send(topic, "o" + i, order(records[i][0], price, "S" + i), Map.of("region", records[i][2]));
                if (records[i][0].equals("buy") && price > 100 && !records[i][2].equals("us")) {
                    selected.add(seq);
                    projections.add(JSON.readTree("{\"price\":" + price + ",\"quote\":{\"bid\":" + (price - 1) + "}}"));
                }
            }
            kafka.send(topic, "text", "not json", Map.of("region", "eu"));
            kafka.send(topic, "o0", (byte[]) null);
            // A last selected record: once it is here, everything before it has been decided.
            long last = kafka.send(topic, "o9", order("buy", 999, "LAST"), Map.of("region", "eu"));
            selected.add(last);
            projections.add(JSON.readTree("{\"price\":999,\"quote\":{\"bid\":998}}"));

            JsonNode received = waitFor(prefix, selected.size());
            assertThat(received).extracting(m -> m.get("seq").asLong()).containsExactlyElementsOf(selected);
            assertThat(received).extracting(m -> m.get("format").asText()).containsOnly("json");
            for (int i = 0; i < projections.size(); i++) {
                assertThat(received.get(i).get("payload")).as("message %d", i).isEqualTo(projections.get(i));
            }
            assertThat(browser.eval("harness.events.filter(e => e.event === 'error').length").asInt()).isZero();
        }
    }

    @Test
    void aDeltaSubscriptionWithFieldsGetsPatchesOfOnlyTheListedFieldsThatChangedAndReassemblesThem() throws Exception {
        String topic = kafka.createTopic(1);
        List<String> quotes = List.of(
                "{\"bid\":1,\"ask\":2,\"book\":{\"depth\":3,\"venue\":\"X\"},\"volume\":10,\"notes\":\"" + "n".repeat(100) + "\"}",
                "{\"bid\":1,\"ask\":3,\"book\":{\"depth\":3,\"venue\":\"Y\"},\"volume\":11,\"notes\":\"a\"}",
                "{\"bid\":1,\"ask\":3,\"book\":{\"depth\":3,\"venue\":\"Z\"},\"volume\":12}",
                "{\"bid\":0.5,\"ask\":3,\"book\":{\"depth\":4},\"volume\":12}",
                "{\"ask\":3,\"book\":{\"depth\":4,\"venue\":\"Q\"},\"volume\":13}");
        List<String> projections = List.of(
                "{\"bid\":1,\"ask\":2,\"book\":{\"depth\":3}}", "{\"bid\":1,\"ask\":3,\"book\":{\"depth\":3}}",
                "{\"bid\":1,\"ask\":3,\"book\":{\"depth\":3}}", "{\"bid\":0.5,\"ask\":3,\"book\":{\"depth\":4}}",
                "{\"ask\":3,\"book\":{\"depth\":4}}");
        try (BridgeFixture bridge = bridge(topic, "127.0.0.1:0")) {
            connect(bridge, everything(topic));
            String endpoint = "/" + topic + "/quote";
            browser.eval("harness.subscribe(" + js(endpoint) + ", {delta: true, fields: ['/bid', '/ask', '/book/depth']})");
            for (String quote : quotes) {
                kafka.send(topic, "quote", quote);
            }
            JsonNode received = waitFor(endpoint, quotes.size());
            for (int i = 0; i < quotes.size(); i++) {
                assertThat(received.get(i).get("payload")).as("document %d", i).isEqualTo(JSON.readTree(projections.get(i)));
            }
            assertThat(received).extracting(m -> m.get("delta").asBoolean()).containsExactly(false, true, true, true, true);

            // What came over the wire: patches touching only listed fields, none when only unlisted ones changed.
            JsonNode patches = browser.eval("harness.frames.filter(f => f.type === 'delta').map(f => f.patch)");
            assertThat(patches).hasSize(4);
            assertThat(patches.get(1)).as("only volume, venue and notes changed").isEmpty();
            for (JsonNode patch : patches) {
                for (JsonNode op : patch) {
                    assertThat(op.get("path").asText()).matches("/bid|/ask|/book/depth|/book");
                }
            }
            assertThat(patches.get(0)).isEqualTo(JSON.readTree("[{\"op\":\"replace\",\"path\":\"/ask\",\"value\":3}]"));
            assertThat(browser.eval("harness.events.filter(e => e.event === 'error').length").asInt()).isZero();
        }
    }

    @Test
    void afterTheNodeGoesAwayAFilteredProjectedSubscriptionRecoversWithTheSameSelectionNothingMissedOrRepeated() throws Exception {
        String topic = kafka.createTopic(2);
        String listen = "127.0.0.1:" + freePort();
        String prefix = "/" + topic + "/k/*";
        Map<Integer, List<Long>> selected = new TreeMap<>();
        Map<Long, Integer> numbers = new java.util.HashMap<>();
        BridgeFixture first = bridge(topic, listen);
        try {
            connect(first, everything(topic));
            assertThat(browser.eval("harness.subscribe(" + js(prefix) + ", {filter: {eq: ['/value/even', true]}, fields: ['/i']})")
                    .asBoolean()).isTrue();
            produceEvenAndOdd(topic, 0, 6, selected, numbers);
            waitFor(prefix, 3);
        } finally {
            first.close();
        }
        assertThat(browser.eval("harness.waitForEvent('disconnected')").asInt()).isEqualTo(1);
        produceEvenAndOdd(topic, 6, 16, selected, numbers);
        try (BridgeFixture second = bridge(topic, listen)) {
            assertThat(browser.eval("harness.waitForEvent('connected', 2)").asInt()).isEqualTo(2);
            produceEvenAndOdd(topic, 16, 20, selected, numbers);
            JsonNode received = waitFor(prefix, 10);

            Map<Integer, List<Long>> got = new TreeMap<>();
            for (JsonNode m : received) {
                String epoch = m.get("epoch").asText();
                long seq = m.get("seq").asLong();
                int partition = Integer.parseInt(epoch.substring(epoch.lastIndexOf('-') + 1));
                got.computeIfAbsent(partition, p -> new ArrayList<>()).add(seq);
                assertThat(m.get("payload")).as("the projection of %s", m).isEqualTo(JSON.readTree("{\"i\":" + numbers.get(partition * 1_000_000L + seq) + "}"));
            }
            assertThat(got).isEqualTo(selected);
            // What the recovering resubscribe sent: the same selection, and positions to recover from.
            JsonNode resubscribe = browser.eval("harness.sentSubscribes.at(-1)");
            assertThat(resubscribe.get("filter")).isEqualTo(JSON.readTree("{\"eq\":[\"/value/even\",true]}"));
            assertThat(resubscribe.get("fields")).isEqualTo(JSON.readTree("[\"/i\"]"));
            assertThat(resubscribe.get("recover")).isNotEmpty();
            JsonNode stats = browser.eval("harness.stats()");
            assertThat(stats.get("duplicatesDropped").asInt()).isZero();
            assertThat(stats.get("connects").asInt()).isEqualTo(2);
            assertThat(browser.eval("harness.received[" + js(prefix) + "].length").asInt()).as("nothing after the last").isEqualTo(10);
        }
    }

    /** Records {@code {"i": i, "even": ..., "noise": ...}} on two partitions; the even ones are what the filter selects. */
    private static void produceEvenAndOdd(String topic, int from, int to, Map<Integer, List<Long>> selected, Map<Long, Integer> numbers)
            throws Exception {
        for (int i = from; i < to; i++) {
            int partition = (i / 2) % 2;
            long seq = kafka.send(topic, partition, "k/" + i, "{\"i\":" + i + ",\"even\":" + (i % 2 == 0) + ",\"noise\":\"" + "z".repeat(i) + "\"}");
            if (i % 2 == 0) {
                selected.computeIfAbsent(partition, p -> new ArrayList<>()).add(seq);
                numbers.put(partition * 1_000_000L + seq, i);
            }
        }
    }

    @Test
    void anInvalidFilterRejectsReadyWithItsCodeAndIsNotRetried() throws Exception {
        String topic = kafka.createTopic(1);
        try (BridgeFixture bridge = bridge(topic, "127.0.0.1:0")) {
            connect(bridge, everything(topic));
            String endpoint = "/" + topic + "/*";
            JsonNode invalid = browser.eval("harness.subscribe(" + js(endpoint) + ", {filter: {eq: ['price', 1]}})");
            assertThat(invalid.get("error").asText()).isEqualTo("invalid_filter");
            assertThat(invalid.get("name").asText()).isEqualTo("BridgeError");
            assertThat(invalid.get("message").asText()).contains("filter.eq[0]");
            assertThat(invalid.get("active").asBoolean()).isFalse();
            JsonNode tooLarge = browser.eval("harness.subscribe(" + js(endpoint) + ", {filter: {in: ['/value/a', Array.from({length: 300}, (_, i) => i)]}})");
            assertThat(tooLarge.get("error").asText()).isEqualTo("filter_too_large");
            JsonNode badFields = browser.eval("harness.subscribe(" + js(endpoint) + ", {fields: []})");
            assertThat(badFields.get("error").asText()).isEqualTo("invalid_filter");
            assertThat(browser.eval("harness.sentSubscribes.length").asInt()).as("each sent once, never retried").isEqualTo(3);

            // Refused means gone: the endpoint can be subscribed again, and receives.
            assertThat(browser.eval("harness.subscribe(" + js(endpoint) + ", {filter: {exists: '/value/a'}})").asBoolean()).isTrue();
            kafka.send(topic, "x", "{\"b\":1}");
            long seq = kafka.send(topic, "x", "{\"a\":1}");
            assertThat(waitFor(endpoint, 1).get(0).get("seq").asLong()).isEqualTo(seq);
            assertThat(browser.eval("harness.events.filter(e => e.event === 'error').map(e => e.code)"))
                    .extracting(JsonNode::asText).containsExactly("invalid_filter", "filter_too_large", "invalid_filter");
        }
    }

    @Test
    void decodedValuesOfAnyJsonTypeArriveAsJsonAndUndecodableOnesAsGapsUnderAPrefix() throws Exception {
        String topic = kafka.createTopic(1);
        String config = "topics: " + topic + "\nformats:\n  - topics: " + topic + "\n    value: {type: string}\n    onDecodeFailure: gap\n";
        try (BridgeFixture bridge = BridgeFixture.on(cluster.getBootstrapServers(), "node-browser").serving(PAGES).start(config)) {
            connect(bridge, everything(topic));
            String prefix = "/" + topic + "/*";
            browser.eval("harness.subscribe(" + js(prefix) + ", {delta: true})");
            long ada = kafka.send(topic, "name", "Ada");
            long broken = kafka.send(topic, "name", new byte[] {(byte) 0xc3, 0x28});
            long json = kafka.send(topic, "name", "{\"not\": \"an object here\"}");

            JsonNode received = waitFor(prefix, 2);
            assertThat(received).extracting(m -> m.get("seq").asLong()).containsExactly(ada, json);
            assertThat(received).extracting(m -> m.get("format").asText()).containsOnly("json");
            assertThat(received.get(0).get("payload").isTextual()).isTrue();
            assertThat(received.get(0).get("payload").asText()).isEqualTo("Ada");
            assertThat(received.get(1).get("payload").asText()).isEqualTo("{\"not\": \"an object here\"}");
            JsonNode gaps = browser.eval("harness.gaps[" + js(prefix) + "]");
            assertThat(gaps).hasSize(1);
            assertThat(gaps.get(0).get("reason").asText()).isEqualTo("undecodable");
            assertThat(gaps.get(0).get("fromSeq").asLong()).isEqualTo(broken);

            // Publish into the formatted topic: a JSON string fits the string format; an object does not.
            String endpoint = "/" + topic + "/name";
            JsonNode ack = browser.eval("harness.publish(" + js(endpoint) + ", 'Grace')");
            assertThat(waitFor(prefix, 3).get(2).get("seq").asLong()).isEqualTo(ack.get("seq").asLong());
            assertThat(browser.eval("harness.received[" + js(prefix) + "][2].payload").asText()).isEqualTo("Grace");
            JsonNode refused = browser.eval("harness.publish(" + js(endpoint) + ", {name: 'Grace'})");
            assertThat(refused.get("error").asText()).isEqualTo("invalid_payload");
            assertThat(browser.eval("harness.events.filter(e => e.event === 'error').length").asInt()).isZero();
        }
    }

    private static final Schema TICK = new Schema.Parser().parse("""
            {"type": "record", "name": "Tick", "namespace": "io.sluice.test", "fields": [
              {"name": "id", "type": "long"},
              {"name": "sym", "type": "string"},
              {"name": "side", "type": {"type": "enum", "name": "Side", "symbols": ["BUY", "SELL"]}},
              {"name": "price", "type": ["null", "double"]},
              {"name": "ref", "type": "bytes"}]}""");

    /**
     * Avro records in the Confluent wire format, written by kafka-clients with Apache Avro's own writer and a schema
     * from the registry (stand-in), reach the JavaScript client in Chromium as the JSON of the documented mapping:
     * a long beyond 2^53 as a string, an enum by symbol, a union unwrapped, bytes as base64; a filter and a field list
     * over the decoded value select and project them, and a JSON publish is written as Avro that Avro reads back.
     */
    @Test
    void avroRecordsFromTheRegistryArriveDecodedFilteredAndProjectedAndAJsonPublishIsWrittenAsAvro() throws Exception {
        String topic = kafka.createTopic(1);
        try (RegistryStandIn registry = RegistryStandIn.start()) {
            int id = registry.register(topic + "-value", TICK.toString());
            String config = "topics: " + topic + "\nschemaRegistry:\n  url: " + registry.url() + "\nformats:\n  - topics: " + topic
                    + "\n    value: {type: avro}\n";
            try (BridgeFixture bridge = BridgeFixture.on(cluster.getBootstrapServers(), "node-browser").serving(PAGES).start(config)) {
                connect(bridge, everything(topic));
                // Not overlapping: a connection receives a record once, through one of its subscriptions (bridge-client-js.md).
                String prefix = "/" + topic + "/ticks/*";
                String whole = "/" + topic + "/whole";
                assertThat(browser.eval("harness.subscribe(" + js(whole) + ")").asBoolean()).isTrue();
                assertThat(browser.eval("harness.subscribe(" + js(prefix) + ", {filter: {eq: ['/value/side', 'BUY']}, fields: ['/id', '/price']})")
                        .asBoolean()).isTrue();

                long big = (1L << 60) + 1;
                byte[] acme = AvroBinary.confluent(id, TICK, tick(big, "ACME", "BUY", 12.5, new byte[] {0, 1, (byte) 0xff}));
                kafka.send(topic, "whole", acme);
                kafka.send(topic, "ticks/1", acme);
                kafka.send(topic, "ticks/2", AvroBinary.confluent(id, TICK, tick(7, "INIT", "SELL", null, new byte[0])));
                long last = kafka.send(topic, "ticks/3", AvroBinary.confluent(id, TICK, tick(8, "LAST", "BUY", null, new byte[] {42})));

                JsonNode decoded = waitFor(whole, 1).get(0);
                assertThat(decoded.get("format").asText()).isEqualTo("json");
                assertThat(decoded.get("payload")).isEqualTo(JSON.readTree(
                        "{\"id\":\"1152921504606846977\",\"sym\":\"ACME\",\"side\":\"BUY\",\"price\":12.5,\"ref\":\"AAH/\"}"));
                JsonNode selected = waitFor(prefix, 2);
                assertThat(selected.get(1).get("seq").asLong()).isEqualTo(last);
                assertThat(selected.get(0).get("payload")).isEqualTo(JSON.readTree("{\"id\":\"1152921504606846977\",\"price\":12.5}"));
                assertThat(selected.get(1).get("payload")).isEqualTo(JSON.readTree("{\"id\":8,\"price\":null}"));

                JsonNode ack = browser.eval("harness.publish(" + js(whole) + ", {id: 9, sym: 'PUB', side: 'SELL', price: 1.25, ref: 'AQI='})");
                assertThat(ack.has("seq")).as("%s", ack).isTrue();
                List<ConsumerRecord<byte[], byte[]>> written = kafka.readAll(topic);
                assertThat(written.get(written.size() - 1).offset()).isEqualTo(ack.get("seq").asLong());
                GenericRecord back = AvroBinary.readConfluent(TICK, id, written.get(written.size() - 1).value());
                assertThat(back.get("sym").toString()).isEqualTo("PUB");
                assertThat(back.get("side").toString()).isEqualTo("SELL");
                assertThat(back.get("price")).isEqualTo(1.25);
                assertThat(browser.eval("harness.events.filter(e => e.event === 'error').length").asInt()).isZero();
            }
        }
    }

    private static GenericRecord tick(long id, String sym, String side, Double price, byte[] ref) {
        GenericRecord r = new GenericData.Record(TICK);
        r.put("id", id);
        r.put("sym", sym);
        r.put("side", new GenericData.EnumSymbol(TICK.getField("side").schema(), side));
        r.put("price", price);
        r.put("ref", java.nio.ByteBuffer.wrap(ref));
        return r;
    }
}
