package io.sluice.bridge.sse;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;

import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.Random;

import com.fasterxml.jackson.databind.JsonNode;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.extension.RegisterExtension;

import io.kroxylicious.testing.kafka.api.KafkaCluster;
import io.kroxylicious.testing.kafka.common.BrokerCluster;
import io.kroxylicious.testing.kafka.junit5ext.KafkaClusterExtension;
import io.sluice.bridge.auth.TestAuthenticator;
import io.sluice.bridge.server.BridgeFixture;
import io.sluice.bridge.server.KafkaHelper;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Hostile SSE clients: forged and oversized {@code Last-Event-ID}s, too many endpoints, tokens in URLs, bytes sent
 * after the GET, and clients that stop reading. Each gets a clear status or close event, nothing it sent is echoed,
 * and what the node holds for it stays bounded by the {@code outbound} limits the WebSocket transport has.
 */
@ExtendWith(KafkaClusterExtension.class)
class SseHostileTest {

    private static final String PAD = "x".repeat(2000);

    @BrokerCluster(numBrokers = 1)
    static KafkaCluster cluster;

    @RegisterExtension
    static final KafkaHelper kafka = KafkaHelper.perClass(() -> cluster.getBootstrapServers());

    private record Answer(int status, Map<String, List<String>> headers, JsonNode body, String raw) {
    }

    private static Answer get(int port, String query, String token, String lastEventId) throws Exception {
        HttpRequest.Builder request = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/ws/sse?" + query));
        if (token != null) {
            request.header("Authorization", "Bearer " + token);
        }
        if (lastEventId != null) {
            request.header("Last-Event-ID", lastEventId);
        }
        return send(request.GET().build());
    }

    private static Answer send(HttpRequest request) throws Exception {
        HttpResponse<String> response = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build()
                .send(request, HttpResponse.BodyHandlers.ofString());
        String raw = response.body();
        JsonNode body = raw.startsWith("{") ? SseClient.JSON.readTree(raw) : null;
        return new Answer(response.statusCode(), response.headers().map(), body, raw);
    }

    private static void refused(Answer answer, int status, String code, String messagePart) {
        assertThat(answer.status()).as(answer.raw()).isEqualTo(status);
        assertThat(answer.body().get("type").asText()).isEqualTo("error");
        assertThat(answer.body().get("code").asText()).isEqualTo(code);
        assertThat(answer.body().get("message").asText()).contains(messagePart);
    }

    @Test
    void everythingRefusableIsAStatusBeforeTheStreamAndNothingSentIsEchoed() throws Exception {
        String topic = kafka.createTopic(1);
        String other = kafka.createTopic(1);
        String token = TestAuthenticator.token("mal", topic + "/*", "");
        String endpoint = "endpoint=/" + topic + "/x";
        try (BridgeFixture bridge = BridgeFixture.start(cluster.getBootstrapServers(), "node-a", "topics: [" + topic + ", " + other + "]")) {
            int port = bridge.port();
            Answer noToken = get(port, endpoint, null, null);
            refused(noToken, 401, "invalid_token", "Authorization: Bearer");
            assertThat(noToken.headers().get("www-authenticate")).containsExactly("Bearer");
            Answer badToken = get(port, endpoint, "not-a-token", null);
            refused(badToken, 401, "invalid_token", "invalid token");
            assertThat(badToken.headers().get("www-authenticate")).containsExactly("Bearer error=\"invalid_token\"");

            Answer inUrl = get(port, endpoint + "&access_token=SECRET-IN-URL", null, null);
            refused(inUrl, 400, "malformed", "tokens in URLs end up in logs");
            assertThat(inUrl.raw()).doesNotContain("SECRET-IN-URL");
            refused(get(port, endpoint + "&token=t", token, null), 400, "malformed", "tokens in URLs");
            refused(get(port, endpoint + "&jwt=t", token, null), 400, "malformed", "tokens in URLs");
            refused(get(port, endpoint + "&colour=red", token, null), 400, "malformed", "unknown parameter colour");
            refused(get(port, endpoint + "&delta=true&delta=true", token, null), 400, "malformed", "delta appears more than once");
            refused(get(port, endpoint + "&" + endpoint, token, null), 400, "malformed", "appears twice");
            refused(get(port, "", token, null), 400, "malformed", "at least one endpoint");
            StringBuilder many = new StringBuilder();
            for (int i = 0; i < 17; i++) {
                many.append("&endpoint=/").append(topic).append("/k").append(i);
            }
            refused(get(port, many.substring(1), token, null), 400, "malformed", "http.maxEndpointsPerStream (16)");
            refused(get(port, endpoint + "&filter=" + URLEncoder.encode("{\"nope\":1}", StandardCharsets.UTF_8), token, null),
                    400, "invalid_filter", "");
            refused(get(port, "endpoint=/" + other + "/x", token, null), 403, "forbidden", "not allowed to subscribe");
            refused(get(port, "endpoint=/nowhere/x", token, null), 404, "unknown_endpoint", "no endpoint /nowhere/x");

            String huge = "1." + "A".repeat(5000);
            Answer tooLong = get(port, endpoint, token, huge);
            refused(tooLong, 400, "malformed", "Last-Event-ID: longer than http.maxLastEventIdBytes (4096)");
            assertThat(tooLong.raw()).doesNotContain("AAAAAAAA");
            byte[] noise = new byte[300];
            new Random(23).nextBytes(noise);
            String forged = "1." + Base64.getUrlEncoder().withoutPadding().encodeToString(noise);
            Answer forgedAnswer = get(port, endpoint, token, forged);
            refused(forgedAnswer, 400, "malformed", "Last-Event-ID: ");
            assertThat(forgedAnswer.raw()).doesNotContain(forged.substring(2, 30));
            refused(get(port, endpoint, token, "2.AA"), 400, "malformed", "Last-Event-ID: not an id of this bridge");
            refused(get(port, endpoint, token, "1.!!"), 400, "malformed", "Last-Event-ID: not base64url");
            // Positions for two endpoints on a stream of one; 1025 positions claimed for one endpoint.
            refused(get(port, endpoint, token, "1." + Base64.getUrlEncoder().withoutPadding().encodeToString(new byte[] {0, 0})),
                    400, "malformed", "more endpoints than the stream names (1)");
            refused(get(port, endpoint, token, "1." + Base64.getUrlEncoder().withoutPadding().encodeToString(new byte[] {(byte) 0x81, 8})),
                    400, "malformed", "more than 1024 positions for one endpoint");
            // A well-formed id naming a partition of a topic the endpoint does not cover: refused without naming it.
            String otherEpoch;
            try (SseClient probe = SseClient.open(port, "endpoint=/" + other + "/x", TestAuthenticator.token("p", other + "/*", ""), null)) {
                probe.expect("connected");
                otherEpoch = probe.expect("subscribed").json().get("positions").get(0).get("epoch").asText();
            }
            Answer wrongEpoch = get(port, endpoint, token, EventIds.encode(List.of(Map.of(otherEpoch, 0L))));
            refused(wrongEpoch, 400, "malformed", "Last-Event-ID: a position does not fit endpoint /" + topic + "/x");
            assertThat(wrongEpoch.raw()).doesNotContain(otherEpoch);

            Answer post = send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/ws/sse?" + endpoint))
                    .POST(HttpRequest.BodyPublishers.ofString("x")).build());
            assertThat(post.status()).isEqualTo(405);
            assertThat(post.headers().get("allow")).containsExactly("GET");
            Answer head = send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/ws/sse?" + endpoint))
                    .method("HEAD", HttpRequest.BodyPublishers.noBody()).build());
            assertThat(head.status()).isEqualTo(405);
            // The node still serves streams.
            try (SseClient ok = SseClient.open(port, endpoint, token, null)) {
                assertThat(ok.status).isEqualTo(200);
                ok.expect("connected");
            }
        }
    }

    @Test
    void withHttpDisabledTheStreamPathIsUnknown() throws Exception {
        String topic = kafka.createTopic(1);
        try (BridgeFixture bridge = BridgeFixture.start(cluster.getBootstrapServers(), "node-a", "topics: " + topic + "\nhttp:\n  enabled: false")) {
            // Read as a stream, so that a stream served by mistake fails the test rather than hanging it.
            try (SseClient stream = SseClient.open(bridge.port(), "endpoint=/" + topic + "/x", TestAuthenticator.token("a", topic + "/*", ""), null)) {
                assertThat(stream.status).isEqualTo(404);
            }
        }
    }

    /** Requests pipelined behind the GET are not answered, and bytes sent later are read and dropped. */
    @Test
    void theConnectionCarriesOnlyTheStreamWhateverTheClientSends() throws Exception {
        String topic = kafka.createTopic(1);
        String token = TestAuthenticator.token("mal", topic + "/*", "");
        try (BridgeFixture bridge = BridgeFixture.start(cluster.getBootstrapServers(), "node-a", "topics: " + topic);
             Socket socket = new Socket()) {
            socket.connect(new InetSocketAddress("127.0.0.1", bridge.port()));
            socket.setSoTimeout(200);
            String get = "GET /ws/sse?endpoint=/" + topic + "/x HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer " + token + "\r\n\r\n";
            OutputStream out = socket.getOutputStream();
            out.write((get + get + "GET /client.js HTTP/1.1\r\nHost: x\r\n\r\n").getBytes(StandardCharsets.US_ASCII));
            out.flush();
            StringBuilder seen = new StringBuilder();
            await().atMost(Duration.ofSeconds(30)).until(() -> readSome(socket, seen).contains("event: subscribed"));
            for (int i = 0; i < 50; i++) {
                out.write("garbage that is not HTTP\r\n\r\n".getBytes(StandardCharsets.US_ASCII));
            }
            out.flush();
            long seq = kafka.send(topic, "x", "after the noise");
            await().atMost(Duration.ofSeconds(30)).until(() -> readSome(socket, seen).contains("\"seq\":" + seq));
            assertThat(seen.toString().split("HTTP/1.1 ", -1)).as("one response").hasSize(2);
            assertThat(seen.toString()).doesNotContain("not HTTP").containsOnlyOnce("event: connected");
        }
    }

    /**
     * A client that stops reading is conflated, then closed with a close event (4008) when it is behind for
     * outbound.maxSlowTime, or at once when what the node holds for it passes outbound.maxBytes; the node's memory for it
     * stays bounded by those limits (the slow-client metrics, as for WebSocket).
     */
    @Test
    void aNonReadingStreamIsConflatedThenClosedWithACloseEvent() throws Exception {
        String topic = kafka.createTopic(1);
        String token = TestAuthenticator.token("sly", topic + "/*", "");
        try (BridgeFixture bridge = BridgeFixture.start(cluster.getBootstrapServers(), "node-a", "socketSendBufferBytes: 8192", """
                topics: %s
                outbound:
                  highWaterMarkBytes: 32768
                  lowWaterMarkBytes: 16384
                  maxBytes: 262144
                  maxSlowTime: 3s
                """.formatted(topic))) {
            // Few keys: conflation holds the client far below maxBytes, so maxSlowTime closes it.
            try (Socket conflated = stalled(bridge.port(), topic, token)) {
                for (int i = 0; i < 200; i++) {
                    kafka.send(topic, i % 2 == 0 ? "a" : "b", "{\"n\": " + i + ", \"pad\": \"" + PAD + "\"}");
                }
                await().atMost(Duration.ofSeconds(30)).until(() -> bridge.metric("sluice_bridge_messages_conflated_total", "") > 0);
                await().atMost(Duration.ofSeconds(30))
                        .until(() -> bridge.metric("sluice_bridge_slow_client_closes_total", "reason=\"max_slow_time\"") == 1);
                // The conflated report would go out when the client catches up; it never does.
                assertThat(readToEnd(conflated)).contains("event: close\ndata: {\"type\":\"close\",\"code\":4008")
                        .endsWith("\n\n\r\n0\r\n\r\n");
            }
            // Every key different: conflation cannot help, the held bytes reach maxBytes.
            try (Socket flooded = stalled(bridge.port(), topic, token)) {
                for (int i = 0; i < 300; i++) {
                    kafka.send(topic, "key-" + i, "{\"n\": " + i + ", \"pad\": \"" + PAD + "\"}");
                }
                await().atMost(Duration.ofSeconds(30))
                        .until(() -> bridge.metric("sluice_bridge_slow_client_closes_total", "reason=\"max_bytes\"") == 1);
                assertThat(readToEnd(flooded)).contains("event: close\ndata: {\"type\":\"close\",\"code\":4008")
                        .contains("outbound limit exceeded").endsWith("0\r\n\r\n");
            }
        }
    }

    /** A stream whose client reads the response head and then stops reading. */
    private static Socket stalled(int port, String topic, String token) throws IOException {
        Socket socket = new Socket();
        socket.setReceiveBufferSize(4096);
        socket.connect(new InetSocketAddress("127.0.0.1", port));
        socket.setSoTimeout(200);
        socket.getOutputStream().write(("GET /ws/sse?endpoint=/" + topic + "/* HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer " + token
                + "\r\n\r\n").getBytes(StandardCharsets.US_ASCII));
        StringBuilder seen = new StringBuilder();
        await().atMost(Duration.ofSeconds(30)).until(() -> readSome(socket, seen).contains("event: subscribed"));
        return socket;
    }

    private static String readSome(Socket socket, StringBuilder seen) throws IOException {
        byte[] buffer = new byte[65536];
        try {
            int n = socket.getInputStream().read(buffer);
            if (n > 0) {
                seen.append(new String(buffer, 0, n, StandardCharsets.UTF_8));
            }
        }
        catch (SocketTimeoutException e) {
            // Nothing more yet.
        }
        return seen.toString();
    }

    private static String readToEnd(Socket socket) throws IOException {
        socket.setSoTimeout(30_000);
        ByteArrayOutputStream all = new ByteArrayOutputStream();
        InputStream in = socket.getInputStream();
        byte[] buffer = new byte[65536];
        for (int n = in.read(buffer); n >= 0; n = in.read(buffer)) {
            all.write(buffer, 0, n);
        }
        return all.toString(StandardCharsets.UTF_8);
    }

}
