package io.sluice.bridge.http;

import java.io.InputStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import com.fasterxml.jackson.databind.ObjectMapper;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.extension.RegisterExtension;

import io.kroxylicious.testing.kafka.api.KafkaCluster;
import io.kroxylicious.testing.kafka.common.BrokerCluster;
import io.kroxylicious.testing.kafka.junit5ext.KafkaClusterExtension;
import io.sluice.auth.testing.JwksServer;
import io.sluice.auth.testing.TestIssuer;
import io.sluice.bridge.server.BridgeFixture;
import io.sluice.bridge.server.KafkaHelper;
import io.sluice.bridge.sse.StreamLines;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * Cross-site request forgery with the session cookie, on the shipped default (no {@code connections.allowedOrigins}):
 * a page of another origin holding no token makes the browser send the cookie with a publish ({@code application/json}
 * and a preflight-free {@code text/plain}) or a stream GET; only the node's own origin (or no browser at all) may use
 * the cookie, a cookie-authenticated POST needs {@code X-Sluice-Request}, and the cookie is the {@code __Host-} one.
 * The cookie sent back is whatever the node's {@code Set-Cookie} named, as a browser does.
 */
@ExtendWith(KafkaClusterExtension.class)
class CookieCsrfTest {

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final String EVIL = "https://evil.example";

    @BrokerCluster(numBrokers = 1)
    static KafkaCluster cluster;

    @RegisterExtension
    static final KafkaHelper kafka = KafkaHelper.perClass(() -> cluster.getBootstrapServers());
    static JwksServer jwks;
    static final TestIssuer ISSUER = TestIssuer.rsa();
    static final HttpClient HTTP = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();

    String topic;
    BridgeFixture bridge;
    String token;
    // "name=value", as the browser sends it back.
    String cookie;

    @BeforeAll
    static void start() throws Exception {
        jwks = new JwksServer(ISSUER.jwks());
    }

    @AfterAll
    static void stop() {
        jwks.close();
    }

    @BeforeEach
    void bridge() throws Exception {
        topic = kafka.createTopic(1);
        bridge = BridgeFixture.start(cluster.getBootstrapServers(), "node-csrf", "", BridgeFixture.jwtAuth(jwks.url(), TestIssuer.ISSUER,
                TestIssuer.AUDIENCE, "0s"), "topics: " + topic + "\n");
        token = ISSUER.token("alice", Duration.ofMinutes(10), Map.of("keys", Map.of(topic, Map.of("read", List.of("*"), "write", List.of("room/*")))));
        HttpResponse<String> session = send(HttpRequest.newBuilder(uri("/session")).header("Authorization", "Bearer " + token)
                .POST(HttpRequest.BodyPublishers.noBody()));
        assertThat(session.statusCode()).isEqualTo(204);
        String setCookie = session.headers().firstValue("Set-Cookie").orElseThrow();
        cookie = setCookie.substring(0, setCookie.indexOf(';'));
    }

    @AfterEach
    void closeBridge() {
        bridge.close();
    }

    /** The node's own origin as a browser on it names it: https (the cookie is Secure) and the Host it sends to. */
    private String own() {
        return "https://127.0.0.1:" + bridge.port();
    }

    private URI uri(String path) {
        return URI.create("http://127.0.0.1:" + bridge.port() + "/ws" + path);
    }

    private static HttpResponse<String> send(HttpRequest.Builder request) throws Exception {
        return HTTP.send(request.build(), HttpResponse.BodyHandlers.ofString());
    }

    private HttpRequest.Builder publish(String contentType, String body) {
        return HttpRequest.newBuilder(uri("/publish?endpoint=/" + topic + "/room/1")).header("Content-Type", contentType)
                .POST(HttpRequest.BodyPublishers.ofString(body));
    }

    private int records() {
        return HttpPublishTest.records(cluster.getBootstrapServers(), topic).size();
    }

    @Test
    void theSecureCookieIsAHostPrefixedCookieForTheWholeHost() {
        assertThat(cookie).startsWith("__Host-sluice-token=").endsWith(token);
    }

    @Test
    void aCookiePublishFromAnotherOriginIs403AsJsonAndAsPlainTextAndWritesNothing() throws Exception {
        for (String type : List.of("application/json", "text/plain")) {
            HttpResponse<String> evil = send(publish(type, "{\"csrf\": true}").header("Cookie", cookie).header("Origin", EVIL));
            assertThat(evil.statusCode()).as(type).isEqualTo(403);
            assertThat(JSON.readTree(evil.body()).get("code").asText()).isEqualTo("forbidden");
            assertThat(evil.headers().firstValue("Access-Control-Allow-Origin")).isEmpty();
            // Even with the header a page of another origin could only send after a preflight the node refuses.
            assertThat(send(publish(type, "{}").header("Cookie", cookie).header("Origin", EVIL).header("X-Sluice-Request", "1"))
                    .statusCode()).as(type).isEqualTo(403);
        }
        // The same host on another port or scheme is another origin; so is an opaque one (after a cross-origin redirect).
        for (String other : List.of("https://127.0.0.1:" + (bridge.port() + 1), "http://127.0.0.1:" + bridge.port(), "null")) {
            assertThat(send(publish("text/plain", "x").header("Cookie", cookie).header("Origin", other).header("X-Sluice-Request", "1"))
                    .statusCode()).as(other).isEqualTo(403);
        }
        // No Origin, but the browser's fetch metadata says the page was of a sibling subdomain.
        assertThat(send(publish("text/plain", "x").header("Cookie", cookie).header("Sec-Fetch-Site", "same-site").header("X-Sluice-Request", "1"))
                .statusCode()).isEqualTo(403);
        assertThat(records()).as("nothing was written").isZero();
    }

    @Test
    void curlSendingTheCookieAsAPlainTextFormFromAnotherOriginIs403AndWritesNothing() throws Exception {
        assumeTrue(StreamLines.onPath("curl"), "curl is not installed");
        // What an HTML form (enctype text/plain) on another origin makes the browser send: no preflight, the cookie.
        Process curl = new ProcessBuilder("curl", "-sS", "-o", "/dev/null", "-w", "%{http_code}", "-X", "POST",
                "-H", "Cookie: " + cookie, "-H", "Origin: " + EVIL, "-H", "Content-Type: text/plain", "--data", "{\"csrf\":1}",
                uri("/publish?endpoint=/" + topic + "/room/1").toString()).redirectErrorStream(true).start();
        assertThat(curl.waitFor(30, TimeUnit.SECONDS)).isTrue();
        assertThat(new String(curl.getInputStream().readAllBytes(), StandardCharsets.UTF_8)).isEqualTo("403");
        assertThat(records()).isZero();
    }

    @Test
    void aCookieStreamFromAnotherOriginIs403() throws Exception {
        HttpRequest.Builder stream = HttpRequest.newBuilder(uri("/sse?endpoint=/" + topic + "/room/1"))
                .header("Cookie", cookie).header("Accept", "text/event-stream").GET();
        assertThat(status(stream.copy().header("Origin", EVIL))).isEqualTo(403);
        // An <img> or <script> of a sibling subdomain: no Origin, fetch metadata same-site.
        assertThat(status(stream.copy().header("Sec-Fetch-Site", "same-site"))).isEqualTo(403);
        assertThat(status(stream.copy().header("Sec-Fetch-Site", "cross-site"))).isEqualTo(403);
    }

    /** The status of a stream request, without waiting for the end of a stream that was opened. */
    private static int status(HttpRequest.Builder request) throws Exception {
        HttpResponse<InputStream> response = HTTP.send(request.build(), HttpResponse.BodyHandlers.ofInputStream());
        response.body().close();
        assertThat(response.headers().firstValue("Access-Control-Allow-Origin")).isEmpty();
        return response.statusCode();
    }

    @Test
    void theNodesOwnOriginAndClientsWithoutOnePublishWithTheCookieAndTheRequestHeader() throws Exception {
        HttpResponse<String> own = send(publish("application/json", "{\"n\": 1}").header("Cookie", cookie).header("Origin", own())
                .header("Sec-Fetch-Site", "same-origin").header("X-Sluice-Request", "1"));
        assertThat(own.statusCode()).as(own.body()).isEqualTo(200);
        assertThat(JSON.readTree(own.body()).get("type").asText()).isEqualTo("ack");
        HttpResponse<String> plain = send(publish("text/plain", "two").header("Cookie", cookie).header("X-Sluice-Request", "1"));
        assertThat(plain.statusCode()).as(plain.body()).isEqualTo(200);
        assertThat(records()).isEqualTo(2);

        // Without the header, a cookie publish is refused even from the node's own origin: nothing more is written.
        HttpResponse<String> bare = send(publish("text/plain", "three").header("Cookie", cookie).header("Origin", own()));
        assertThat(bare.statusCode()).isEqualTo(403);
        assertThat(bare.body()).contains("X-Sluice-Request");
        assertThat(send(publish("text/plain", "four").header("Cookie", cookie)).statusCode()).isEqualTo(403);
        assertThat(records()).isEqualTo(2);
    }

    @Test
    void theNodesOwnOriginOpensAStreamWithTheCookie() throws Exception {
        HttpRequest.Builder stream = HttpRequest.newBuilder(uri("/sse?endpoint=/" + topic + "/room/1"))
                .header("Cookie", cookie).header("Accept", "text/event-stream").GET();
        for (HttpRequest.Builder request : List.of(stream.copy().header("Origin", own()), stream.copy().header("Sec-Fetch-Site", "same-origin"), stream.copy())) {
            HttpResponse<InputStream> opened = HTTP.send(request.build(), HttpResponse.BodyHandlers.ofInputStream());
            try (InputStream body = opened.body()) {
                assertThat(opened.statusCode()).isEqualTo(200);
                assertThat(StreamLines.of(body).next("event: connected")).isNotNull();
            }
        }
    }

    @Test
    void aBearerTokenIsUnaffectedByOriginAndNeedsNoRequestHeader() throws Exception {
        HttpResponse<String> published = send(publish("text/plain", "bearer").header("Authorization", "Bearer " + token).header("Origin", EVIL)
                .header("Sec-Fetch-Site", "cross-site"));
        assertThat(published.statusCode()).as(published.body()).isEqualTo(200);
        assertThat(records()).isEqualTo(1);
    }

    @Test
    void anUnprefixedCookieAsASubdomainCouldPlantOneIsNotRead() throws Exception {
        HttpResponse<String> planted = send(publish("text/plain", "tossed").header("Cookie", "sluice-token=" + token).header("X-Sluice-Request", "1"));
        assertThat(planted.statusCode()).isEqualTo(401);
        assertThat(records()).isZero();
    }

    @Test
    void overHttp2CurlFromTheNodesOwnOriginPublishesWithTheCookieAndFromAnotherIsRefused() throws Exception {
        assumeTrue(StreamLines.onPath("curl"), "curl is not installed");
        // HTTP/2 names the host in :authority; the own origin is read from it as from Host.
        assertThat(curlH2(own())).isEqualTo("200");
        assertThat(curlH2(EVIL)).isEqualTo("403");
        assertThat(records()).isEqualTo(1);
    }

    private String curlH2(String origin) throws Exception {
        List<String> command = new ArrayList<>(List.of("curl", "-sS", "--http2-prior-knowledge", "-o", "/dev/null", "-w", "%{http_code}",
                "-X", "POST", "-H", "Cookie: " + cookie, "-H", "Origin: " + origin, "-H", "X-Sluice-Request: 1",
                "-H", "Content-Type: text/plain", "--data", "h2", uri("/publish?endpoint=/" + topic + "/room/1").toString()));
        Process curl = new ProcessBuilder(command).redirectErrorStream(true).start();
        assertThat(curl.waitFor(30, TimeUnit.SECONDS)).isTrue();
        return new String(curl.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    }
}
