package io.sluice.bridge.server;

import io.kroxylicious.testing.kafka.junit5ext.KafkaClusterExtension;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.extension.RegisterExtension;
import java.io.FileInputStream;
import java.io.InputStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyStore;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

import javax.net.ssl.SSLContext;
import javax.net.ssl.TrustManagerFactory;

import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import io.kroxylicious.testing.kafka.api.KafkaCluster;
import io.kroxylicious.testing.kafka.common.BrokerCluster;
import io.netty.handler.codec.http2.Http2Error;
import io.netty.handler.codec.http2.Http2Headers;
import io.sluice.bridge.auth.TestAuthenticator;
import io.sluice.bridge.sse.StreamLines;
import io.sluice.tls.TestPki;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * HTTP/2 on the bridge's HTTP transport (docs/bridge-http.md, "HTTP/2"): h2c by prior knowledge and ALPN h2, read and
 * written by clients the team did not write (curl, the JDK's HttpClient), and the hostile cases with a bare frame
 * client ({@link RawH2}): a stream that is never given window, streams past the limit, rapid resets, oversized
 * headers and bodies, an idle connection.
 */
@ExtendWith(KafkaClusterExtension.class)
class Http2Test {

    private static final String PAD = "x".repeat(2000);
    private static final String OUTBOUND = """
            topics: %s
            outbound:
              highWaterMarkBytes: 32768
              lowWaterMarkBytes: 16384
              maxBytes: 262144
              maxSlowTime: 3s
              slowCloseGrace: 1s
            """;

    @BrokerCluster(numBrokers = 1)
    static KafkaCluster cluster;

    @TempDir
    static Path dir;

    @RegisterExtension
    static final KafkaHelper kafka = KafkaHelper.perClass(() -> cluster.getBootstrapServers());
    static TestPki pki;

    @BeforeAll
    static void pki() throws Exception {
        pki = new TestPki(dir);
    }

    @Test
    void curlReadsAStreamAndPublishesOverH2cByPriorKnowledge() throws Exception {
        assumeTrue(StreamLines.onPath("curl"), "curl is not installed");
        String topic = kafka.createTopic(1);
        String token = TestAuthenticator.token("hal", topic + "/*", topic + "/*");
        try (BridgeFixture bridge = BridgeFixture.start(cluster.getBootstrapServers(), "node-a", "topics: " + topic)) {
            String base = "http://127.0.0.1:" + bridge.port() + "/ws";
            Process stream = new ProcessBuilder("curl", "--http2-prior-knowledge", "-sNi", "--max-time", "60",
                    "-H", "Authorization: Bearer " + token, base + "/sse?endpoint=/" + topic + "/*").redirectErrorStream(true).start();
            try {
                StreamLines lines = StreamLines.of(stream.getInputStream());
                assertThat(lines.next("HTTP/")).isEqualTo("HTTP/2 200");
                assertThat(lines.next("content-type:")).isEqualTo("content-type: text/event-stream; charset=utf-8");
                assertThat(lines.next("event: subscribed")).isNotNull();
                Process publish = new ProcessBuilder("curl", "--http2-prior-knowledge", "-s", "-w", "\n%{http_version} %{http_code}",
                        "-H", "Authorization: Bearer " + token, "-H", "Content-Type: application/json", "--data", "{\"over\":\"h2c\"}",
                        base + "/publish?endpoint=/" + topic + "/k").redirectErrorStream(true).start();
                String answer = new String(publish.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
                assertThat(publish.waitFor(30, TimeUnit.SECONDS)).isTrue();
                assertThat(answer).contains("\"type\":\"ack\"").endsWith("\n2 200");
                assertThat(lines.next("id: ")).startsWith("id: 1.");
                assertThat(lines.next("data: ")).contains("\"payload\":{\"over\":\"h2c\"}");
            }
            finally {
                stream.destroy();
            }
        }
    }

    /** A body over server.maxInboundMessageBytes is 413 on HTTP/2 as on HTTP/1.1, and nothing is published. */
    @Test
    void aPublishTooLargeIs413OverH2c() throws Exception {
        assumeTrue(StreamLines.onPath("curl"), "curl is not installed");
        String topic = kafka.createTopic(1);
        String token = TestAuthenticator.token("hal", topic + "/*", topic + "/*");
        Path big = dir.resolve("big.bin");
        Files.write(big, new byte[300_000]);
        try (BridgeFixture bridge = BridgeFixture.start(cluster.getBootstrapServers(), "node-a", "maxInboundMessageBytes: 65536", "topics: " + topic)) {
            Process publish = new ProcessBuilder("curl", "--http2-prior-knowledge", "-s", "-w", "\n%{http_version} %{http_code}",
                    "-H", "Authorization: Bearer " + token, "-H", "Content-Type: application/octet-stream", "--data-binary", "@" + big,
                    "http://127.0.0.1:" + bridge.port() + "/ws/publish?endpoint=/" + topic + "/k").redirectErrorStream(true).start();
            String answer = new String(publish.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            publish.waitFor(30, TimeUnit.SECONDS);
            assertThat(answer).contains("maxInboundMessageBytes").endsWith("\n2 413");
            assertThat(kafka.readAll(topic)).isEmpty();
        }
    }

    /**
     * The JDK's HttpClient negotiates h2 by ALPN on the TLS listener, reads a stream, and resumes it on a new stream
     * with Last-Event-ID: the message published meanwhile, once.
     */
    @Test
    void theJdkClientReadsAndResumesAStreamOverAlpnH2() throws Exception {
        String topic = kafka.createTopic(1);
        String token = TestAuthenticator.token("ada", topic + "/*", "");
        HttpClient client = HttpClient.newBuilder().version(HttpClient.Version.HTTP_2).sslContext(trusting()).build();
        try (BridgeFixture bridge = BridgeFixture.on(cluster.getBootstrapServers(), "node-tls").server(tlsSection()).start("topics: " + topic)) {
            URI uri = URI.create("https://localhost:" + bridge.port() + "/ws/sse?endpoint=/" + topic + "/*");
            HttpResponse<Stream<String>> first = client.send(HttpRequest.newBuilder(uri).header("Authorization", "Bearer " + token).build(),
                    HttpResponse.BodyHandlers.ofLines());
            assertThat(first.version()).isEqualTo(HttpClient.Version.HTTP_2);
            assertThat(first.statusCode()).isEqualTo(200);
            StreamLines lines = StreamLines.of(first.body());
            lines.next("event: subscribed");
            long one = kafka.send(topic, "k", "one");
            String id = lines.next("id: ").substring(4);
            assertThat(lines.next("data: ")).contains("\"seq\":" + one);
            first.body().close();

            long two = kafka.send(topic, "k", "two");
            HttpResponse<Stream<String>> resumed = client.send(HttpRequest.newBuilder(uri).header("Authorization", "Bearer " + token)
                    .header("Last-Event-ID", id).build(), HttpResponse.BodyHandlers.ofLines());
            assertThat(resumed.version()).isEqualTo(HttpClient.Version.HTTP_2);
            StreamLines again = StreamLines.of(resumed.body());
            assertThat(again.next("data: {\"type\":\"message\"")).contains("\"seq\":" + two).doesNotContain("\"seq\":" + one + ",");
            resumed.body().close();
        }
    }

    /** With http.http2 false, ALPN offers only http/1.1 and the h2c preface is not HTTP/2. */
    @Test
    void withHttp2OffOnlyHttp11IsSpoken() throws Exception {
        String topic = kafka.createTopic(1);
        String token = TestAuthenticator.token("ada", topic + "/*", "");
        HttpClient client = HttpClient.newBuilder().version(HttpClient.Version.HTTP_2).sslContext(trusting()).build();
        try (BridgeFixture bridge = BridgeFixture.on(cluster.getBootstrapServers(), "node-tls").server(tlsSection())
                .start("topics: " + topic + "\nhttp:\n  http2: false\n")) {
            HttpResponse<String> answer = client.send(HttpRequest.newBuilder(URI.create("https://localhost:" + bridge.port()
                    + "/ws/publish?endpoint=/" + topic + "/k")).header("Authorization", "Bearer " + token)
                    .POST(HttpRequest.BodyPublishers.ofString("x")).header("Content-Type", "text/plain").build(), HttpResponse.BodyHandlers.ofString());
            assertThat(answer.version()).isEqualTo(HttpClient.Version.HTTP_1_1);
        }
        try (BridgeFixture bridge = BridgeFixture.start(cluster.getBootstrapServers(), "node-a", "topics: " + topic + "\nhttp:\n  http2: false\n");
             RawH2 raw = RawH2.connect(bridge.port(), 0)) {
            // The HTTP/1.1 codec reads the preface as a request (answered as any unknown one) and the SETTINGS frame after
            // it as garbage: text answers, never an HTTP/2 frame.
            assertThat(raw.rest()).as("HTTP/1.1 answers to the preface, no SETTINGS").startsWith("HTTP/")
                    .contains("HTTP/1.1 400 Bad Request");
        }
    }

    /**
     * A client that reads the socket but never sends WINDOW_UPDATE: past the stream's window, its frames wait in the
     * connection's flow controller, where they count against outbound.maxBytes like a socket's queue. The stream is
     * conflated, then ended when behind for outbound.maxSlowTime; with every message a different key, ended at once when
     * the held bytes pass outbound.maxBytes. Either way it is reset after the close event's grace
     * (outbound.slowCloseGrace, short here: the stream never reads its close event).
     */
    @Test
    void aStreamNeverGivenWindowIsConflatedThenEndedAndItsBytesAreBounded() throws Exception {
        String topic = kafka.createTopic(1);
        String token = TestAuthenticator.token("sly", topic + "/*", "");
        try (BridgeFixture bridge = BridgeFixture.start(cluster.getBootstrapServers(), "node-a", OUTBOUND.formatted(topic))) {
            try (RawH2 conflated = RawH2.connect(bridge.port(), 0)) {
                BlockingQueue<RawH2.Frame> frames = subscribed(conflated, topic, token, true);
                for (int i = 0; i < 200; i++) {
                    kafka.send(topic, i % 2 == 0 ? "a" : "b", "{\"n\": " + i + ", \"pad\": \"" + PAD + "\"}");
                }
                await().atMost(Duration.ofSeconds(30)).until(() -> bridge.metric("sluice_bridge_messages_conflated_total", "") > 0);
                await().atMost(Duration.ofSeconds(30))
                        .until(() -> bridge.metric("sluice_bridge_slow_client_closes_total", "reason=\"max_slow_time\"") == 1);
                resetAfterTheGrace(frames);
            }
            try (RawH2 flooded = RawH2.connect(bridge.port(), 0)) {
                BlockingQueue<RawH2.Frame> frames = subscribed(flooded, topic, token, true);
                for (int i = 0; i < 300; i++) {
                    kafka.send(topic, "key-" + i, "{\"n\": " + i + ", \"pad\": \"" + PAD + "\"}");
                }
                await().atMost(Duration.ofSeconds(30))
                        .until(() -> bridge.metric("sluice_bridge_slow_client_closes_total", "reason=\"max_bytes\"") == 1);
                resetAfterTheGrace(frames);
                assertThat(bridge.metric("sluice_bridge_slow_client_closes_total", "reason=\"max_slow_time\"")).isEqualTo(1);
            }
        }
    }

    /**
     * The frames waiting in the flow controller count against outbound.maxBytes: two keys of 20 KB conflate to 40 KB,
     * far below maxBytes (64 KiB) alone, but with the stream's unsent frames (past the high-water mark, 32 KiB) they
     * pass it, and the stream is ended for max_bytes long before maxSlowTime (60 s).
     */
    @Test
    void framesWaitingForWindowCountAgainstMaxBytes() throws Exception {
        String topic = kafka.createTopic(1);
        String token = TestAuthenticator.token("sly", topic + "/*", "");
        String big = "y".repeat(20_000);
        try (BridgeFixture bridge = BridgeFixture.start(cluster.getBootstrapServers(), "node-a", """
                topics: %s
                outbound:
                  highWaterMarkBytes: 32768
                  lowWaterMarkBytes: 16384
                  maxBytes: 65536
                  maxSlowTime: 60s
                  slowCloseGrace: 1s
                """.formatted(topic));
             RawH2 raw = RawH2.connect(bridge.port(), 0)) {
            BlockingQueue<RawH2.Frame> frames = subscribed(raw, topic, token, true);
            for (int i = 0; i < 20; i++) {
                kafka.send(topic, i % 2 == 0 ? "a" : "b", "{\"n\": " + i + ", \"pad\": \"" + big + "\"}");
            }
            await().atMost(Duration.ofSeconds(20))
                    .until(() -> bridge.metric("sluice_bridge_slow_client_closes_total", "reason=\"max_bytes\"") == 1);
            resetAfterTheGrace(frames);
        }
    }

    /**
     * A client that stops reading the socket altogether: the stream's session ends it as for a slow HTTP/1.1 client
     * (counted once), and the connection, stuck with nothing open, is closed.
     */
    @Test
    void aConnectionThatStopsReadingIsEndedOnce() throws Exception {
        String topic = kafka.createTopic(1);
        String token = TestAuthenticator.token("sly", topic + "/*", "");
        try (BridgeFixture bridge = BridgeFixture.start(cluster.getBootstrapServers(), "node-a", OUTBOUND.formatted(topic))) {
            try (RawH2 stalled = RawH2.connect(bridge.port(), 4096)) {
                subscribed(stalled, topic, token, false);
                for (int i = 0; i < 200; i++) {
                    kafka.send(topic, i % 2 == 0 ? "a" : "b", "{\"n\": " + i + ", \"pad\": \"" + PAD + "\"}");
                }
                await().atMost(Duration.ofSeconds(30))
                        .until(() -> bridge.metric("sluice_bridge_slow_client_closes_total", "reason=\"max_slow_time\"") >= 1);
                // Reading again, the client finds its stream ended (reset once the close event's grace ran out) or the
                // connection closed; the slow client was counted once, by its session, not again by the connection.
                assertThat(ended(reading(stalled), 1)).isTrue();
                assertThat(bridge.metric("sluice_bridge_slow_client_closes_total", "reason=\"max_slow_time\"")).isEqualTo(1);
            }
        }
    }

    /** Streams past http.maxConcurrentStreams are refused (RST_STREAM REFUSED_STREAM); those within it are served. */
    @Test
    void streamsPastTheLimitAreRefused() throws Exception {
        String topic = kafka.createTopic(1);
        String token = TestAuthenticator.token("flo", topic + "/*", "");
        try (BridgeFixture bridge = BridgeFixture.start(cluster.getBootstrapServers(), "node-a", "topics: " + topic + "\nhttp:\n  maxConcurrentStreams: 2\n");
             RawH2 raw = RawH2.connect(bridge.port(), 0)) {
            RawH2.Frame settings = raw.next();
            assertThat(settings.type()).isEqualTo(RawH2.SETTINGS);
            for (int stream = 1; stream <= 5; stream += 2) {
                raw.headers(stream, RawH2.get("/ws/sse?endpoint=/" + topic + "/*", token), true);
            }
            List<Integer> ok = new ArrayList<>();
            Integer refused = null;
            while (ok.size() < 2 || refused == null) {
                RawH2.Frame f = raw.next();
                assertThat(f).isNotNull();
                if (f.type() == RawH2.HEADERS && f.headers().status().toString().equals("200")) {
                    ok.add(f.stream());
                    assertThat(ok).as("streams served").hasSizeLessThanOrEqualTo(2);
                }
                if (f.type() == RawH2.RST_STREAM) {
                    assertThat(f.errorCode()).isEqualTo(Http2Error.REFUSED_STREAM.code());
                    refused = f.stream();
                }
            }
            assertThat(ok).containsExactlyInAnyOrder(1, 3);
            assertThat(refused).isEqualTo(5);
        }
    }

    /**
     * Streams reset by the client while their publish body is still being read: each stream is closed, nothing is
     * published, nothing is logged at WARN for it, and the connection goes on serving.
     */
    @Test
    void streamsResetMidBodyCloseQuietlyAndTheConnectionGoesOn() throws Exception {
        String topic = kafka.createTopic(1);
        String token = TestAuthenticator.token("rex", topic + "/*", topic + "/*");
        NettyWarnings warnings = NettyWarnings.capture();
        try (BridgeFixture bridge = BridgeFixture.start(cluster.getBootstrapServers(), "node-a", "topics: " + topic);
             RawH2 raw = RawH2.connect(bridge.port(), 0)) {
            BlockingQueue<RawH2.Frame> frames = reading(raw);
            for (int stream = 1; stream <= 9; stream += 2) {
                Http2Headers post = new io.netty.handler.codec.http2.DefaultHttp2Headers().method("POST").scheme("http").authority("127.0.0.1")
                        .path("/ws/publish?endpoint=/" + topic + "/k").add("authorization", "Bearer " + token)
                        .add("content-type", "text/plain").add("content-length", "1000");
                raw.headers(stream, post, false);
                raw.data(stream, io.netty.buffer.Unpooled.copiedBuffer("only part of it", StandardCharsets.UTF_8), false);
                raw.rst(stream, Http2Error.CANCEL.code());
            }
            raw.headers(11, RawH2.get("/ws/sse?endpoint=/" + topic + "/*", token), true);
            StringBuilder seen = new StringBuilder();
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
            while (!seen.toString().contains("event: subscribed") && System.nanoTime() < deadline) {
                RawH2.Frame f = frames.poll(1, TimeUnit.SECONDS);
                assertThat(f == null || f.type() != -1).as("the connection stays open").isTrue();
                if (f != null && f.type() == RawH2.DATA && f.stream() == 11) {
                    seen.append(f.text());
                }
            }
            assertThat(seen.toString()).as("a stream after the resets is served").contains("event: subscribed");
            assertThat(kafka.readAll(topic)).as("nothing of the cut bodies was published").isEmpty();
        }
        finally {
            warnings.stop();
        }
        assertThat(warnings.lines()).isEmpty();
    }

    /** Netty's WARN lines while a test runs (an exception no handler took is one, with its stack trace). */
    private static final class NettyWarnings {
        private final ch.qos.logback.classic.Logger netty = (ch.qos.logback.classic.Logger) org.slf4j.LoggerFactory.getLogger("io.netty");
        private final ch.qos.logback.core.read.ListAppender<ch.qos.logback.classic.spi.ILoggingEvent> logs = new ch.qos.logback.core.read.ListAppender<>();

        static NettyWarnings capture() {
            NettyWarnings w = new NettyWarnings();
            w.logs.start();
            w.netty.addAppender(w.logs);
            return w;
        }

        void stop() {
            netty.detachAppender(logs);
        }

        List<String> lines() {
            synchronized (logs) {
                return logs.list.stream().filter(e -> e.getLevel().isGreaterOrEqual(ch.qos.logback.classic.Level.WARN))
                        .map(ch.qos.logback.classic.spi.ILoggingEvent::getFormattedMessage).toList();
            }
        }
    }

    /**
     * Rapid reset (CVE-2023-44487): a client opening and resetting streams without end is sent GOAWAY and closed. The
     * streams it cut log nothing at WARN: each used to reach the end of its pipeline as an exception no handler took,
     * a WARN with a stack trace per stream, about a thousand lines from one client.
     */
    @Test
    void rapidResetsEndTheConnection() throws Exception {
        NettyWarnings warnings = NettyWarnings.capture();
        try (BridgeFixture bridge = BridgeFixture.start(cluster.getBootstrapServers(), "node-a", "topics: " + kafka.createTopic(1));
             RawH2 raw = RawH2.connect(bridge.port(), 0)) {
            // Read while sending: the node closes the connection with the attacker's frames still unread, and the
            // kernel then resets it, which fails our writes and can discard a GOAWAY not yet read.
            BlockingQueue<RawH2.Frame> frames = reading(raw);
            try {
                for (int stream = 1; stream < 2 * 1000; stream += 2) {
                    raw.headers(stream, RawH2.get("/ws/nothing-here", null), false);
                    raw.rst(stream, Http2Error.CANCEL.code());
                }
            }
            catch (java.net.SocketException endedByTheNode) {
                // Expected once the node has had enough.
            }
            RawH2.Frame goAway = null;
            for (RawH2.Frame f = frames.poll(30, TimeUnit.SECONDS); f != null && f.type() != -1; f = frames.poll(30, TimeUnit.SECONDS)) {
                if (f.type() == RawH2.GOAWAY) {
                    goAway = f;
                }
            }
            assertThat(goAway).isNotNull();
            assertThat(goAway.errorCode()).isEqualTo(Http2Error.ENHANCE_YOUR_CALM.code());
        }
        finally {
            warnings.stop();
        }
        assertThat(warnings.lines()).as("WARN lines from the attack").isEmpty();
    }

    /**
     * A header block over connections.maxHeaderBytes (SETTINGS_MAX_HEADER_LIST_SIZE) is refused before any route sees
     * it: the stream is reset, or answered 431, or the connection is ended; never served.
     */
    @Test
    void oversizedHeadersAreRefused() throws Exception {
        try (BridgeFixture bridge = BridgeFixture.on(cluster.getBootstrapServers(), "node-a")
                .start("topics: " + kafka.createTopic(1) + "\nconnections:\n  maxHeaderBytes: 4096\n");
             RawH2 raw = RawH2.connect(bridge.port(), 0)) {
            Http2Headers headers = RawH2.get("/ws/sse?endpoint=/x", null).add("x-pad", "p".repeat(6000));
            raw.headers(1, headers, true);
            for (RawH2.Frame f = raw.next(); f != null; f = raw.next()) {
                if (f.type() == RawH2.HEADERS) {
                    assertThat(f.headers().status().toString()).isEqualTo("431");
                    return;
                }
                if (f.type() == RawH2.RST_STREAM && f.stream() == 1 || f.type() == RawH2.GOAWAY) {
                    return;
                }
            }
        }
    }

    /** An HTTP/2 connection with no open stream for connections.handshakeTimeout is sent GOAWAY and closed. */
    @Test
    void anIdleConnectionIsClosedWithGoAway() throws Exception {
        try (BridgeFixture bridge = BridgeFixture.on(cluster.getBootstrapServers(), "node-a")
                .start("topics: " + kafka.createTopic(1) + "\nconnections:\n  handshakeTimeout: 2s\n");
             RawH2 raw = RawH2.connect(bridge.port(), 0)) {
            RawH2.Frame goAway = null;
            for (RawH2.Frame f = raw.next(); f != null; f = raw.next()) {
                if (f.type() == RawH2.GOAWAY) {
                    goAway = f;
                }
            }
            assertThat(goAway).isNotNull();
            assertThat(goAway.errorCode()).isEqualTo(Http2Error.NO_ERROR.code());
        }
    }

    /**
     * Opens a stream and reads until it is subscribed; then, never sending WINDOW_UPDATE, either keeps reading the socket
     * (the frames read are returned) or stops reading altogether (null).
     */
    private static BlockingQueue<RawH2.Frame> subscribed(RawH2 raw, String topic, String token, boolean keepReading) throws Exception {
        raw.headers(1, RawH2.get("/ws/sse?endpoint=/" + topic + "/*", token), true);
        StringBuilder seen = new StringBuilder();
        while (!seen.toString().contains("event: subscribed")) {
            RawH2.Frame f = raw.next();
            assertThat(f).isNotNull();
            if (f.type() == RawH2.DATA) {
                seen.append(f.text());
            }
        }
        return keepReading ? reading(raw) : null;
    }

    /** Reads frames in the background from now on; a frame of type -1 marks the end of the connection. */
    private static BlockingQueue<RawH2.Frame> reading(RawH2 raw) {
        BlockingQueue<RawH2.Frame> frames = new LinkedBlockingQueue<>();
        Thread reader = new Thread(() -> {
            try {
                for (RawH2.Frame f = raw.next(); f != null; f = raw.next()) {
                    frames.add(f);
                }
            }
            catch (Exception e) {
                // Closed.
            }
            frames.add(new RawH2.Frame(-1, 0, 0, new byte[0], null));
        }, "h2-frames");
        reader.setDaemon(true);
        reader.start();
        return frames;
    }

    /** Whether the stream ends (reset, or its last DATA frame) or the connection does, within a minute. */
    private static boolean ended(BlockingQueue<RawH2.Frame> frames, int stream) throws Exception {
        return ending(frames, stream) != null;
    }

    /** The frame that ended the stream or the connection within a minute (type -1: the connection's end), or null. */
    private static RawH2.Frame ending(BlockingQueue<RawH2.Frame> frames, int stream) throws Exception {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        while (System.nanoTime() < deadline) {
            RawH2.Frame f = frames.poll(1, TimeUnit.SECONDS);
            if (f != null && (f.type() == -1 || f.type() == RawH2.GOAWAY || f.stream() == stream && (f.type() == RawH2.RST_STREAM || f.endStream()))) {
                return f;
            }
        }
        return null;
    }

    /**
     * A stream whose close event never got the client's window is reset when the grace runs out: the client, which
     * ended its half with the GET, learns at once that the stream is over (before, nothing came until the connection
     * was idle for connections.handshakeTimeout and sent GOAWAY).
     */
    private static void resetAfterTheGrace(BlockingQueue<RawH2.Frame> frames) throws Exception {
        RawH2.Frame end = ending(frames, 1);
        assertThat(end).as("the stream's end").isNotNull();
        assertThat(end.type()).as("the frame that ended it (RST_STREAM is %d)", RawH2.RST_STREAM).isEqualTo(RawH2.RST_STREAM);
        assertThat(end.stream()).isEqualTo(1);
        assertThat(end.errorCode()).isEqualTo(Http2Error.CANCEL.code());
    }

    private String tlsSection() throws Exception {
        return """
                tls:
                  key:
                    privateKeyFile: "%s"
                    certificateFile: "%s"
                """.formatted(pki.privateKeyPem(pki.server, "server"), pki.certificatePem(pki.server, "server"));
    }

    private static SSLContext trusting() throws Exception {
        Path store = pki.trustStore(pki.ca, "ca-trust", "PKCS12");
        KeyStore trust = KeyStore.getInstance("PKCS12");
        try (InputStream in = new FileInputStream(store.toFile())) {
            trust.load(in, TestPki.STORE_PASSWORD.toCharArray());
        }
        TrustManagerFactory factory = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
        factory.init(trust);
        SSLContext context = SSLContext.getInstance("TLS");
        context.init(null, factory.getTrustManagers(), null);
        return context;
    }
}
