package io.sluice.bridge.client;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import io.kroxylicious.testing.kafka.api.KafkaCluster;
import io.kroxylicious.testing.kafka.common.BrokerCluster;
import io.kroxylicious.testing.kafka.junit5ext.KafkaClusterExtension;
import io.sluice.auth.testing.JwksServer;
import io.sluice.auth.testing.TestIssuer;
import io.sluice.bridge.auth.TestAuthenticator;
import io.sluice.bridge.server.BridgeFixture;
import io.sluice.bridge.server.KafkaHelper;
import io.sluice.bridge.web.StaticContent;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The bridge's HTTP transport (docs/bridge-http.md) read by browsers and Node, against real Kafka and real bridge
 * nodes: the JavaScript client falling back to SSE + HTTP publish in Chromium on a network where WebSocket upgrades
 * fail; Chromium's native {@code EventSource} with the session cookie; the npm {@code eventsource} package with an
 * Authorization header. Each is cut off by its node going away and resumes on the node that replaces it (same address,
 * empty cache: recovery from the Kafka log) with no gap and no duplicate.
 */
@ExtendWith(KafkaClusterExtension.class)
class SseFallbackTest {

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final Duration TIMEOUT = Duration.ofSeconds(60);

    /** A network that breaks WebSocket: every upgrade fails before it opens, as behind a proxy that strips Upgrade. */
    private static final String FALLBACK_PAGE = """
            <!doctype html>
            <meta charset="utf-8">
            <script>
              window.upgradeAttempts = 0;
              window.WebSocket = class BrokenWebSocket {
                constructor(url) {
                  window.upgradeAttempts++;
                  setTimeout(() => this.onclose && this.onclose({code: 1006, reason: ''}), 0);
                }
                addEventListener() {}
                send() { throw new Error('never open'); }
                close() {}
              };
            </script>
            <script type="module" src="harness.js"></script>
            """;

    /** No client library: the browser's own EventSource, authenticated by the session cookie. */
    private static final String EVENT_SOURCE_PAGE = """
            <!doctype html>
            <meta charset="utf-8">
            <script>
              window.es = {
                messages: [], opens: 0, errors: 0,
                async login(token) {
                  const r = await fetch('/ws/session', {method: 'POST', headers: {Authorization: 'Bearer ' + token}});
                  return r.status;
                },
                open(query) {
                  const source = new EventSource('/ws/sse?' + query);
                  source.onopen = () => this.opens++;
                  source.onerror = () => this.errors++;
                  source.onmessage = (e) => {
                    const m = JSON.parse(e.data);
                    this.messages.push({id: e.lastEventId, epoch: m.epoch, seq: m.seq, payload: m.payload});
                  };
                  this.source = source;
                  return true;
                },
                async waitFor(n, timeoutMs = 30000) {
                  const deadline = Date.now() + timeoutMs;
                  while (this.messages.length < n && Date.now() < deadline) {
                    await new Promise((r) => setTimeout(r, 20));
                  }
                  return this.messages;
                },
              };
            </script>
            """;

    private static final StaticContent PAGES = StaticContent.fromClasspath(StaticContent.CLIENT_JS, "browser-test")
            .withGenerated("/sse-fallback.html", "text/html; charset=utf-8", () -> FALLBACK_PAGE.getBytes(StandardCharsets.UTF_8))
            .withGenerated("/event-source.html", "text/html; charset=utf-8", () -> EVENT_SOURCE_PAGE.getBytes(StandardCharsets.UTF_8));

    @BrokerCluster(numBrokers = 1)
    static KafkaCluster cluster;

    static KafkaHelper kafka;
    static HeadlessBrowser browser;

    @BeforeAll
    static void start() {
        kafka = new KafkaHelper(cluster.getBootstrapServers());
    }

    @AfterAll
    static void stop() throws Exception {
        kafka.close();
        if (browser != null) {
            browser.close();
        }
    }

    private static HeadlessBrowser browser() throws Exception {
        if (browser == null) {
            browser = HeadlessBrowser.launch();
        }
        return browser;
    }

    private static String js(Object value) throws Exception {
        return JSON.writeValueAsString(value);
    }

    private static int freePort() throws Exception {
        try (ServerSocket socket = new ServerSocket(0)) {
            return socket.getLocalPort();
        }
    }

    private static BridgeFixture node(String name, String listen, String topic) {
        return BridgeFixture.on(cluster.getBootstrapServers(), name).listen(listen).serving(PAGES).start("topics: " + topic);
    }

    /** Records on two partitions; what was sent, per partition, in order. */
    private static void produce(String topic, String key, int from, int to, Map<Integer, List<Long>> sent) throws Exception {
        for (int i = from; i < to; i++) {
            int partition = i % 2;
            sent.computeIfAbsent(partition, p -> new ArrayList<>()).add(kafka.send(topic, partition, key + "/" + i, "{\"i\": " + i + "}"));
        }
    }

    /** (partition -> seqs in arrival order) of messages {epoch, seq}: any gap or duplicate shows against what was sent. */
    private static Map<Integer, List<Long>> received(JsonNode messages) {
        Map<Integer, List<Long>> got = new TreeMap<>();
        for (JsonNode m : messages) {
            String epoch = m.get("epoch").asText();
            got.computeIfAbsent(Integer.parseInt(epoch.substring(epoch.lastIndexOf('-') + 1)), p -> new ArrayList<>()).add(m.get("seq").asLong());
        }
        return got;
    }

    @Test
    void withWebSocketBrokenTheClientFallsBackToSseAndHttpPublishAndResumesOnAnotherNodeWithNoGapAndNoDuplicate() throws Exception {
        HeadlessBrowser browser = browser();
        String topic = kafka.createTopic(2);
        String listen = "127.0.0.1:" + freePort();
        String prefix = "/" + topic + "/k/*";
        String quote = "/" + topic + "/quote";
        String room = "/" + topic + "/chat/room-1";
        Map<Integer, List<Long>> sent = new TreeMap<>();
        BridgeFixture first = node("node-sse-1", listen, topic);
        try {
            browser.open("http://127.0.0.1:" + first.port() + "/sse-fallback.html", "window.harness !== undefined");
            browser.eval("harness.start(" + js(List.of(TestAuthenticator.token("alice", topic + "/*", topic + "/chat/*"))) + ")");
            assertThat(browser.eval("harness.bridge.transport").asText()).isEqualTo("sse");
            assertThat(browser.eval("window.upgradeAttempts").asInt()).as("fallbackAfter: two failed upgrades").isEqualTo(2);

            assertThat(browser.eval("harness.subscribe(" + js(prefix) + ")").asBoolean()).isTrue();
            assertThat(browser.eval("harness.subscribe(" + js(room) + ")").asBoolean()).isTrue();
            assertThat(browser.eval("harness.subscribe(" + js(quote) + ", {fields: ['/bid', '/ask'], delta: true})").asBoolean()).isTrue();

            // Publish over HTTP: JSON, text, bytes; read back on the stream at the acknowledged positions.
            JsonNode jsonAck = browser.eval("harness.publish(" + js(room) + ", {text: 'hi', n: [1, 2.5, null]})");
            JsonNode textAck = browser.eval("harness.publish(" + js(room) + ", 'hello \u00e9')");
            JsonNode bytesAck = browser.eval("harness.publish(" + js(room) + ", new Uint8Array([0, 128, 255]))");
            JsonNode chat = browser.eval("harness.waitFor(" + js(room) + ", 3)");
            assertThat(chat).extracting(m -> m.get("seq").asLong())
                    .containsExactly(jsonAck.get("seq").asLong(), textAck.get("seq").asLong(), bytesAck.get("seq").asLong());
            assertThat(chat.get(0).get("epoch")).isEqualTo(jsonAck.get("epoch"));
            assertThat(chat).extracting(m -> m.get("format").asText()).containsExactly("json", "text", "base64");
            assertThat(chat.get(0).get("payload")).isEqualTo(JSON.readTree("{\"text\":\"hi\",\"n\":[1,2.5,null]}"));
            assertThat(chat.get(1).get("payload").asText()).isEqualTo("hello \u00e9");
            assertThat(chat.get(2).get("payload")).isEqualTo(JSON.readTree("{\"bytes\":[0,128,255]}"));
            JsonNode refused = browser.eval("harness.bridge.publish(" + js("/" + topic + "/news/x")
                    + ", 'nope').then(() => 'published', (e) => ({name: e.name, code: e.code, message: e.message}))");
            assertThat(refused.get("name").asText()).isEqualTo("BridgeError");
            assertThat(refused.get("code").asText()).isEqualTo("forbidden");

            // The projected delta subscription, on its own stream (another fields/delta group).
            kafka.send(topic, "quote", "{\"bid\":1,\"ask\":2,\"venue\":\"X\"}");
            kafka.send(topic, "quote", "{\"bid\":1,\"ask\":3,\"venue\":\"Y\"}");
            JsonNode quotes = browser.eval("harness.waitFor(" + js(quote) + ", 2)");
            assertThat(quotes.get(0).get("payload")).isEqualTo(JSON.readTree("{\"bid\":1,\"ask\":2}"));
            assertThat(quotes.get(1).get("payload")).isEqualTo(JSON.readTree("{\"bid\":1,\"ask\":3}"));
            assertThat(quotes.get(1).get("delta").asBoolean()).isTrue();

            produce(topic, "k", 0, 6, sent);
            assertThat(browser.eval("harness.waitFor(" + js(prefix) + ", 6)").size()).isEqualTo(6);
        } finally {
            first.close();
        }
        assertThat(browser.eval("harness.waitForEvent('disconnected')").asInt()).isEqualTo(1);
        produce(topic, "k", 6, 16, sent);
        try (BridgeFixture second = node("node-sse-2", listen, topic)) {
            assertThat(browser.eval("harness.waitForEvent('connected', 2)").asInt()).isEqualTo(2);
            produce(topic, "k", 16, 20, sent);
            JsonNode messages = browser.eval("harness.waitFor(" + js(prefix) + ", 20)");
            assertThat(received(messages)).isEqualTo(sent);
            JsonNode stats = browser.eval("harness.stats()");
            assertThat(stats.get("duplicatesDropped").asInt()).isZero();
            assertThat(stats.get("connects").asInt()).isEqualTo(2);
            assertThat(browser.eval("harness.bridge.session.node").asText()).isEqualTo("node-sse-2");
            assertThat(browser.eval("window.upgradeAttempts").asInt()).as("on SSE for the rest of its life").isEqualTo(2);
            assertThat(browser.eval("harness.events.filter(e => e.event === 'error').length").asInt()).isZero();
            // Still publishing, now through the second node.
            assertThat(browser.eval("harness.publish(" + js(room) + ", {after: 'restart'})").has("seq")).isTrue();
        }
    }

    @Test
    void nativeEventSourceWithTheSessionCookieResumesWithLastEventIdOnTheNodeThatReplacedItsOwn() throws Exception {
        HeadlessBrowser browser = browser();
        TestIssuer issuer = TestIssuer.rsa();
        String topic = kafka.createTopic(2);
        String listen = "127.0.0.1:" + freePort();
        Map<Integer, List<Long>> sent = new TreeMap<>();
        try (JwksServer jwks = new JwksServer(issuer.jwks())) {
            String auth = BridgeFixture.jwtAuth(jwks.url(), TestIssuer.ISSUER, TestIssuer.AUDIENCE, "0s");
            // cookieSecure false: the page is on http://, where a browser drops a Secure cookie.
            String sections = "topics: " + topic + "\nhttp:\n  cookieSecure: false\n";
            String token = issuer.token("alice", Duration.ofMinutes(10), Map.of("keys", Map.of(topic, Map.of("read", List.of("*"), "write", List.of()))));
            BridgeFixture first = BridgeFixture.on(cluster.getBootstrapServers(), "node-es-1").listen(listen).auth(auth).serving(PAGES).start(sections);
            try {
                browser.open("http://127.0.0.1:" + first.port() + "/event-source.html", "window.es !== undefined");
                assertThat(browser.eval("es.login(" + js(token) + ")").asInt()).isEqualTo(204);
                browser.eval("es.open(" + js("endpoint=/" + topic + "/k/*") + ")");
                await(() -> browser.eval("es.opens").asInt() == 1);
                produce(topic, "k", 0, 6, sent);
                assertThat(browser.eval("es.waitFor(6)").size()).isEqualTo(6);
            } finally {
                first.close();
            }
            await(() -> browser.eval("es.errors").asInt() >= 1);
            produce(topic, "k", 6, 16, sent);
            try (BridgeFixture second = BridgeFixture.on(cluster.getBootstrapServers(), "node-es-2").listen(listen).auth(auth).serving(PAGES)
                    .start(sections)) {
                produce(topic, "k", 16, 20, sent);
                JsonNode messages = browser.eval("es.waitFor(20)");
                assertThat(received(messages)).isEqualTo(sent);
                assertThat(messages).allMatch(m -> m.get("id").asText().startsWith("1."), "every message has an id");
                assertThat(browser.eval("es.opens").asInt()).as("EventSource reconnected by itself").isGreaterThanOrEqualTo(2);
                assertThat(browser.eval("es.source.readyState").asInt()).isEqualTo(1);
            }
        }
    }

    @Test
    void theNpmEventsourcePackageSendsAnAuthorizationHeaderAndResumesWithLastEventIdAfterTheNodeIsReplaced() throws Exception {
        NodeTools.requireNpmPackages();
        String topic = kafka.createTopic(2);
        String listen = "127.0.0.1:" + freePort();
        String token = TestAuthenticator.token("cat", topic + "/*", "");
        Map<Integer, List<Long>> sent = new TreeMap<>();
        Process node = null;
        BridgeFixture first = node("node-npm-es-1", listen, topic);
        try {
            node = new ProcessBuilder("node", "test/foreign/eventsource-resume.mjs", "http://" + listen + "/ws/sse?endpoint=/" + topic + "/k/*", token)
                    .directory(NodeTools.CLIENT_JS.toFile()).redirectError(ProcessBuilder.Redirect.INHERIT).start();
            BlockingQueue<JsonNode> lines = lines(node);
            List<JsonNode> messages = new ArrayList<>();
            List<JsonNode> requests = new ArrayList<>();
            next(lines, l -> l.has("open"), messages, requests);
            produce(topic, "k", 0, 6, sent);
            while (messages.size() < 6) {
                next(lines, l -> l.has("seq"), messages, requests);
            }
            first.close();
            produce(topic, "k", 6, 16, sent);
            try (BridgeFixture second = node("node-npm-es-2", listen, topic)) {
                produce(topic, "k", 16, 20, sent);
                while (messages.size() < 20) {
                    next(lines, l -> l.has("seq"), messages, requests);
                }
                assertThat(received(JSON.valueToTree(messages))).isEqualTo(sent);
                assertThat(requests.get(0).get("request").isNull()).as("the first request resumes nothing").isTrue();
                // Every reconnect sent the id of the last message received before the drop.
                String lastBeforeDrop = messages.get(5).get("id").asText();
                assertThat(requests.subList(1, requests.size())).isNotEmpty()
                        .allMatch(r -> r.get("request").asText().equals(lastBeforeDrop), "Last-Event-ID " + lastBeforeDrop);
            }
        } finally {
            first.close();
            if (node != null) {
                node.getOutputStream().close();
                if (!node.waitFor(10, TimeUnit.SECONDS)) {
                    node.destroyForcibly();
                }
            }
        }
    }

    private static BlockingQueue<JsonNode> lines(Process process) {
        BlockingQueue<JsonNode> lines = new LinkedBlockingQueue<>();
        Thread reader = new Thread(() -> {
            try (BufferedReader in = new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8))) {
                String line;
                while ((line = in.readLine()) != null) {
                    lines.add(JSON.readTree(line));
                }
            } catch (java.io.IOException e) {
                // the process ended; a waiting poll times out
            }
        }, "eventsource-out");
        reader.setDaemon(true);
        reader.start();
        return lines;
    }

    /** Reads lines until one matches, sorting messages and requests on the way. */
    private static void next(BlockingQueue<JsonNode> lines, java.util.function.Predicate<JsonNode> wanted, List<JsonNode> messages,
            List<JsonNode> requests) throws Exception {
        for (;;) {
            JsonNode line = lines.poll(TIMEOUT.toSeconds(), TimeUnit.SECONDS);
            assertThat(line).as("a line from the eventsource script within %s (messages so far: %s)", TIMEOUT, messages).isNotNull();
            if (line.has("seq")) {
                messages.add(line);
            }
            if (line.has("request")) {
                requests.add(line);
            }
            if (wanted.test(line)) {
                return;
            }
        }
    }

    private interface Check {
        boolean holds() throws Exception;
    }

    private static void await(Check check) throws Exception {
        long deadline = System.nanoTime() + TIMEOUT.toNanos();
        while (!check.holds()) {
            assertThat(System.nanoTime()).as("condition within %s", TIMEOUT).isLessThan(deadline);
            Thread.sleep(50);
        }
    }
}
