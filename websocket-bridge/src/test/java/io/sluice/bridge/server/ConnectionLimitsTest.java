package io.sluice.bridge.server;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletionException;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import io.kroxylicious.testing.kafka.api.KafkaCluster;
import io.kroxylicious.testing.kafka.common.BrokerCluster;
import io.kroxylicious.testing.kafka.junit5ext.KafkaClusterExtension;
import io.netty.handler.codec.http.websocketx.WebSocketClientHandshakeException;
import io.sluice.bridge.auth.TestAuthenticator;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

/**
 * Hostile clients at the connection level, against a real node and Kafka: connections that never finish their HTTP
 * upgrade, oversized requests, too many connections, handshakes or new connections from one address or in total,
 * forged {@code X-Forwarded-For}, and foreign {@code Origin}s. Per-address limits are exercised from the loopback
 * source addresses 127.0.0.2 and 127.0.0.3; 127.0.0.4 plays a trusted reverse proxy.
 */
@ExtendWith(KafkaClusterExtension.class)
class ConnectionLimitsTest {

    @BrokerCluster(numBrokers = 1)
    static KafkaCluster cluster;

    static KafkaHelper kafka;
    static String topic;

    @BeforeAll
    static void helper() throws Exception {
        kafka = new KafkaHelper(cluster.getBootstrapServers());
        topic = kafka.createTopic(1);
    }

    @AfterAll
    static void closeHelper() {
        kafka.close();
    }

    private static BridgeFixture bridge(String connections) {
        return BridgeFixture.start(cluster.getBootstrapServers(), "node-a", "", """
                topics: %s
                connections:
                %s
                """.formatted(topic, connections.stripIndent().indent(2)));
    }

    private static String token() {
        return TestAuthenticator.token("ivy", topic + "/*", "");
    }

    private static double refused(BridgeFixture bridge, String reason) {
        return bridge.metric("sluice_bridge_connections_refused_total", "reason=\"" + reason + "\"");
    }

    private static Socket raw(BridgeFixture bridge, String source) throws IOException {
        Socket socket = new Socket();
        socket.bind(new InetSocketAddress(source, 0));
        socket.connect(new InetSocketAddress("127.0.0.1", bridge.port()));
        return socket;
    }

    /** Reads until the server closes; fails if it is still open after {@code within}. */
    private static String readUntilClosed(Socket socket, Duration within) throws IOException {
        socket.setSoTimeout((int) within.toMillis());
        InputStream in = socket.getInputStream();
        StringBuilder got = new StringBuilder();
        byte[] buffer = new byte[4096];
        try {
            for (int n; (n = in.read(buffer)) >= 0; ) {
                got.append(new String(buffer, 0, n, StandardCharsets.ISO_8859_1));
            }
        }
        catch (SocketTimeoutException e) {
            throw new AssertionError("the bridge kept the connection open for " + within + "; read so far: " + got);
        }
        catch (IOException reset) {
            // A reset is a close too.
        }
        return got.toString();
    }

    private static void send(Socket socket, String text) throws IOException {
        OutputStream out = socket.getOutputStream();
        out.write(text.getBytes(StandardCharsets.ISO_8859_1));
        out.flush();
    }

    private static Throwable refusal(BridgeFixture bridge, String source, Map<String, String> headers) {
        try {
            WsClient client = WsClient.connectFrom(bridge.port(), source, headers);
            client.close();
            throw new AssertionError("the upgrade from " + source + " with " + headers + " was accepted");
        }
        catch (CompletionException e) {
            return e.getCause();
        }
    }

    private static int refusedStatus(BridgeFixture bridge, String source, Map<String, String> headers) {
        Throwable cause = refusal(bridge, source, headers);
        assertThat(cause).isInstanceOf(WebSocketClientHandshakeException.class);
        return ((WebSocketClientHandshakeException) cause).response().status().code();
    }

    private static void closedAtAccept(BridgeFixture bridge, String source) {
        // Closed (or reset) before the upgrade request was read: no HTTP answer.
        assertThat(refusal(bridge, source, Map.of())).as("closed without an HTTP answer")
                .isInstanceOfAny(IllegalStateException.class, java.net.SocketException.class);
    }

    private static WsClient connected(BridgeFixture bridge, String source, Map<String, String> headers) {
        WsClient client = WsClient.connectFrom(bridge.port(), source, headers);
        client.request("connect", m -> m.put("token", token()));
        client.expect("connected");
        return client;
    }

    // ---- item 2: half-open connections and request size

    @Test
    void silentAndPartialUpgradeRequestsAreClosedAfterTheHandshakeTimeoutWhileAnUpgradedClientStays() throws Exception {
        try (BridgeFixture bridge = bridge("""
                handshakeTimeout: 1s
                maxHandshakesPerIp: 100
                """)) {
            List<Socket> sockets = new ArrayList<>();
            try (WsClient upgraded = connected(bridge, "127.0.0.3", Map.of())) {
                for (int i = 0; i < 10; i++) {
                    sockets.add(raw(bridge, "127.0.0.2"));
                }
                for (int i = 0; i < 10; i++) {
                    Socket partial = raw(bridge, "127.0.0.2");
                    // A slowloris: the start of an upgrade, never finished.
                    send(partial, "GET /ws HTTP/1.1\r\nHost: 127.0.0.1\r\nUpgrade: websocket\r\nConnec");
                    sockets.add(partial);
                }
                Socket keepAlive = raw(bridge, "127.0.0.2");
                // A complete plain request on a keep-alive connection does not buy more time either.
                send(keepAlive, "GET /nothing-here HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n");
                sockets.add(keepAlive);
                for (Socket s : sockets) {
                    readUntilClosed(s, Duration.ofSeconds(10));
                }
                await().atMost(Duration.ofSeconds(5)).until(() -> bridge.metric("sluice_bridge_handshake_timeouts_total", "") == 21);

                upgraded.subscribe("/" + topic + "/*");
                long seq = kafka.send(topic, "k", "{\"still\": \"here\"}");
                assertThat(upgraded.expect("message").get("seq").asLong()).isEqualTo(seq);
            }
            finally {
                for (Socket s : sockets) {
                    s.close();
                }
            }
        }
    }

    @Test
    void anOversizedRequestLineOrHeaderBlockIsAnsweredAndClosed() throws Exception {
        try (BridgeFixture bridge = bridge("""
                maxRequestLineBytes: 1024
                maxHeaderBytes: 2048
                """)) {
            try (Socket longUri = raw(bridge, "127.0.0.2")) {
                send(longUri, "GET /ws?" + "a".repeat(2000) + " HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n");
                assertThat(readUntilClosed(longUri, Duration.ofSeconds(10))).startsWith("HTTP/1.1 414");
            }
            try (Socket bigHeaders = raw(bridge, "127.0.0.2")) {
                send(bigHeaders, "GET /ws HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Filler: " + "b".repeat(4000) + "\r\n\r\n");
                assertThat(readUntilClosed(bigHeaders, Duration.ofSeconds(10))).startsWith("HTTP/1.1 431");
            }
            try (Socket garbage = raw(bridge, "127.0.0.2")) {
                send(garbage, "\u0001\u0002 not http at all\r\n\r\n");
                assertThat(readUntilClosed(garbage, Duration.ofSeconds(10))).startsWith("HTTP/1.1 400");
            }
            assertThat(refused(bridge, "request_too_large")).isEqualTo(2);
            assertThat(refused(bridge, "bad_request")).isEqualTo(1);
            try (WsClient fine = connected(bridge, "127.0.0.2", Map.of())) {
                assertThat(fine.isOpen()).isTrue();
            }
        }
    }

    // ---- item 3: limits per address and in total

    @Test
    void connectionsPerAddressAreLimitedForThatAddressOnly() throws Exception {
        try (BridgeFixture bridge = bridge("maxConnectionsPerIp: 3")) {
            List<WsClient> clients = new ArrayList<>();
            try {
                for (int i = 0; i < 3; i++) {
                    clients.add(connected(bridge, "127.0.0.2", Map.of()));
                }
                closedAtAccept(bridge, "127.0.0.2");
                assertThat(refused(bridge, "max_connections_per_ip")).isEqualTo(1);
                clients.add(connected(bridge, "127.0.0.3", Map.of()));

                clients.remove(0).close();
                await().atMost(Duration.ofSeconds(5)).ignoreExceptions().untilAsserted(() -> {
                    WsClient again = connected(bridge, "127.0.0.2", Map.of());
                    clients.add(again);
                });
                assertThat(clients).allMatch(WsClient::isOpen);
            }
            finally {
                clients.forEach(WsClient::close);
            }
        }
    }

    @Test
    void handshakesInProgressPerAddressAndInTotalAreLimited() throws Exception {
        try (BridgeFixture bridge = bridge("""
                maxHandshakesPerIp: 2
                maxHandshakes: 3
                """)) {
            List<Socket> silent = new ArrayList<>(List.of(raw(bridge, "127.0.0.2"), raw(bridge, "127.0.0.2")));
            try {
                // Retried: the bridge counts a connection once its event loop has set it up, a moment after the accept.
                await().atMost(Duration.ofSeconds(10)).untilAsserted(() -> {
                    try (Socket c = raw(bridge, "127.0.0.2")) {
                        readUntilClosed(c, Duration.ofSeconds(2));
                    }
                    assertThat(refused(bridge, "max_handshakes_per_ip")).isEqualTo(1);
                });
                // The third handshake in progress on the node: the total is reached for everyone.
                silent.add(raw(bridge, "127.0.0.3"));
                await().atMost(Duration.ofSeconds(10)).untilAsserted(() -> {
                    closedAtAccept(bridge, "127.0.0.3");
                    assertThat(refused(bridge, "max_handshakes")).isEqualTo(1);
                });
            }
            finally {
                for (Socket s : silent) {
                    s.close();
                }
            }
            // The silent sockets are gone: upgrades work again, and an upgraded connection holds no handshake slot.
            List<WsClient> clients = new ArrayList<>();
            try {
                await().atMost(Duration.ofSeconds(5)).ignoreExceptions()
                        .untilAsserted(() -> clients.add(connected(bridge, "127.0.0.2", Map.of())));
                for (int i = 0; i < 3; i++) {
                    clients.add(connected(bridge, "127.0.0.2", Map.of()));
                }
            }
            finally {
                clients.forEach(WsClient::close);
            }
        }
    }

    @Test
    void newConnectionsPerAddressAreRateLimitedByATokenBucket() {
        try (BridgeFixture bridge = bridge("""
                connectionsPerSecondPerIp: 0.01
                connectionBurstPerIp: 3
                """)) {
            for (int i = 0; i < 3; i++) {
                connected(bridge, "127.0.0.2", Map.of()).close();
            }
            closedAtAccept(bridge, "127.0.0.2");
            assertThat(refused(bridge, "rate_per_ip")).isEqualTo(1);
            connected(bridge, "127.0.0.3", Map.of()).close();
        }
    }

    @Test
    void connectionsInTotalAreLimited() {
        try (BridgeFixture bridge = bridge("maxConnections: 2");
             WsClient a = connected(bridge, "127.0.0.2", Map.of());
             WsClient b = connected(bridge, "127.0.0.3", Map.of())) {
            closedAtAccept(bridge, "127.0.0.3");
            assertThat(refused(bridge, "max_connections")).isEqualTo(1);
            assertThat(a.isOpen() && b.isOpen()).isTrue();
        }
    }

    @Test
    void forwardedForIsBelievedOnlyFromTrustedProxiesAndReadFromTheRight() {
        try (BridgeFixture bridge = bridge("""
                maxConnectionsPerIp: 1
                trustedProxies: [127.0.0.4/32]
                """)) {
            List<WsClient> clients = new ArrayList<>();
            try {
                // Through the proxy, two different clients: the proxy's own address is not limited per address.
                clients.add(connected(bridge, "127.0.0.4", Map.of("X-Forwarded-For", "203.0.113.9")));
                clients.add(connected(bridge, "127.0.0.4", Map.of("X-Forwarded-For", "203.0.113.10")));
                // The same client again, with a forged entry on the left: the rightmost untrusted entry counts.
                assertThat(refusedStatus(bridge, "127.0.0.4", Map.of("X-Forwarded-For", "198.51.100.1, 203.0.113.9"))).isEqualTo(429);
                assertThat(refused(bridge, "max_connections_per_ip")).isEqualTo(1);
                assertThat(refusedStatus(bridge, "127.0.0.4", Map.of("X-Forwarded-For", "not-an-address"))).isEqualTo(400);
                assertThat(refused(bridge, "bad_forwarded_for")).isEqualTo(1);

                // Not from the proxy: the header is ignored, the TCP peer is the client.
                clients.add(connected(bridge, "127.0.0.2", Map.of("X-Forwarded-For", "203.0.113.50")));
                closedAtAccept(bridge, "127.0.0.2");
                assertThat(refused(bridge, "max_connections_per_ip")).isEqualTo(2);
                assertThat(clients).allMatch(WsClient::isOpen);
            }
            finally {
                clients.forEach(WsClient::close);
            }
        }
    }

    // ---- item 7: Origin policy

    @Test
    void anUpgradeFromAnOriginNotAllowedIsRefusedWith403() {
        try (BridgeFixture bridge = bridge("allowedOrigins: [\"https://app.example\", \"http://localhost:3000\"]")) {
            assertThat(refusedStatus(bridge, "127.0.0.2", Map.of("Origin", "https://evil.example"))).isEqualTo(403);
            assertThat(refusedStatus(bridge, "127.0.0.2", Map.of("Origin", "null"))).isEqualTo(403);
            assertThat(refused(bridge, "origin")).isEqualTo(2);
            connected(bridge, "127.0.0.2", Map.of("Origin", "https://APP.example")).close();
            connected(bridge, "127.0.0.2", Map.of("Origin", "http://localhost:3000")).close();
            // Not a browser: no Origin to judge.
            connected(bridge, "127.0.0.2", Map.of()).close();
            assertThat(refused(bridge, "origin")).isEqualTo(2);
        }
    }

    @Test
    void oneSubjectHoldsAtMostMaxConnectionsPerSubjectAcrossWebSocketAndSseAndGetsThemBackWhenTheyEnd() throws Exception {
        try (BridgeFixture bridge = bridge("maxConnectionsPerSubject: 2")) {
            String ivy = token();
            WsClient first = WsClient.connected(bridge.port(), ivy);
            java.net.http.HttpResponse<InputStream> stream = sse(bridge, ivy);
            assertThat(stream.statusCode()).isEqualTo(200);

            // The subject's third session, by either transport, is refused; another subject is not affected.
            try (WsClient third = WsClient.connect(bridge.port())) {
                third.request("connect", m -> m.put("token", ivy));
                assertThat(third.awaitClose()).isEqualTo(1013);
                assertThat(third.closeReason()).contains("connections.maxConnectionsPerSubject 2");
            }
            java.net.http.HttpResponse<InputStream> thirdStream = sse(bridge, ivy);
            assertThat(thirdStream.statusCode()).isEqualTo(429);
            assertThat(thirdStream.headers().firstValue("Retry-After")).isPresent();
            assertThat(new String(thirdStream.body().readAllBytes(), StandardCharsets.UTF_8))
                    .contains("\"code\":\"too_many_connections\"").contains("maxConnectionsPerSubject");
            WsClient.connected(bridge.port(), TestAuthenticator.token("other", topic + "/*", "")).close();
            assertThat(bridge.metric("sluice_bridge_requests_refused_total", "reason=\"subject_connections\"")).isEqualTo(2);

            // A session that ends gives its place back, whichever transport it was.
            first.close();
            await().untilAsserted(() -> {
                java.net.http.HttpResponse<InputStream> again = sse(bridge, ivy);
                again.body().close();
                assertThat(again.statusCode()).isEqualTo(200);
            });
            stream.body().close();
            await().untilAsserted(() -> WsClient.connected(bridge.port(), ivy).close());
        }
    }

    private static java.net.http.HttpResponse<InputStream> sse(BridgeFixture bridge, String token) throws Exception {
        return java.net.http.HttpClient.newBuilder().version(java.net.http.HttpClient.Version.HTTP_1_1).build().send(
                java.net.http.HttpRequest.newBuilder(java.net.URI.create("http://127.0.0.1:" + bridge.port() + "/ws/sse?endpoint=/" + topic + "/k"))
                        .header("Authorization", "Bearer " + token).GET().build(),
                java.net.http.HttpResponse.BodyHandlers.ofInputStream());
    }
}
