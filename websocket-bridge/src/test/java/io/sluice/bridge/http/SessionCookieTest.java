package io.sluice.bridge.http;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

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

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The session cookie with real RS256 tokens and the JWT authenticator {@code sluice bridge} builds: the exchange, a
 * publish carrying only the cookie, the Origin rules and CORS, logout, and a cookie replayed after its token expired.
 */
@ExtendWith(KafkaClusterExtension.class)
class SessionCookieTest {

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final String APP = "https://app.example";
    private static final Pattern COOKIE = Pattern.compile(
            "__Host-sluice-token=([A-Za-z0-9_.-]+); Path=/; Max-Age=(\\d+); HttpOnly; SameSite=Strict; Secure");
    // The name a Secure session cookie has (SessionCookie): what a browser sends back.
    private static final String COOKIE_NAME = "__Host-sluice-token=";

    @BrokerCluster(numBrokers = 1)
    static KafkaCluster cluster;

    @RegisterExtension
    static final KafkaHelper kafka = KafkaHelper.perClass(() -> cluster.getBootstrapServers());
    static JwksServer jwks;
    static final TestIssuer ISSUER = TestIssuer.rsa();
    static final HttpClient HTTP = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();

    String topic;
    BridgeFixture bridge;

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
        bridge = BridgeFixture.start(cluster.getBootstrapServers(), "node-cookie", "", BridgeFixture.jwtAuth(jwks.url(), TestIssuer.ISSUER, TestIssuer.AUDIENCE, "0s"),
                "topics: " + topic + "\nconnections:\n  allowedOrigins: [\"" + APP + "\"]\n");
    }

    @AfterEach
    void closeBridge() {
        bridge.close();
    }

    private String token(Duration lifetime) {
        return ISSUER.token("alice", lifetime, Map.of("keys", Map.of(topic, Map.of("read", List.of("*"), "write", List.of("room/*")))));
    }

    private URI uri(String path) {
        return URI.create("http://127.0.0.1:" + bridge.port() + "/ws" + path);
    }

    private HttpResponse<String> send(HttpRequest.Builder request) throws Exception {
        return HTTP.send(request.build(), HttpResponse.BodyHandlers.ofString());
    }

    private HttpResponse<String> session(String token) throws Exception {
        return send(HttpRequest.newBuilder(uri("/session")).header("Authorization", "Bearer " + token).POST(HttpRequest.BodyPublishers.noBody()));
    }

    private HttpRequest.Builder publish(String body) {
        // X-Sluice-Request: what a cookie-authenticated POST needs (HttpCredentials), as a page of an allowed origin sends.
        return HttpRequest.newBuilder(uri("/publish?endpoint=/" + topic + "/room/1")).header("Content-Type", "application/json")
                .header("X-Sluice-Request", "1").POST(HttpRequest.BodyPublishers.ofString(body));
    }

    @Test
    void theBearerTokenBecomesAnHttpOnlyStrictSecureCookieThatAloneAuthenticatesAPublish() throws Exception {
        String token = token(Duration.ofMinutes(10));
        HttpResponse<String> exchanged = session(token);

        assertThat(exchanged.statusCode()).isEqualTo(204);
        List<String> cookies = exchanged.headers().allValues("Set-Cookie");
        assertThat(cookies).hasSize(1);
        Matcher cookie = COOKIE.matcher(cookies.get(0));
        assertThat(cookie.matches()).as(cookies.get(0)).isTrue();
        assertThat(cookie.group(1)).isEqualTo(token);
        assertThat(Long.parseLong(cookie.group(2))).isBetween(590L, 600L);

        HttpResponse<String> published = send(publish("{\"n\": 1}").header("Cookie", COOKIE_NAME + token));
        assertThat(published.statusCode()).isEqualTo(200);
        assertThat(JSON.readTree(published.body()).get("type").asText()).isEqualTo("ack");
        assertThat(HttpPublishTest.records(cluster.getBootstrapServers(), topic)).hasSize(1);

        // The header wins over the cookie: a stale cookie beside a good header does not matter.
        assertThat(send(publish("{\"n\": 2}").header("Authorization", "Bearer " + token).header("Cookie", COOKIE_NAME + "stale"))
                .statusCode()).isEqualTo(200);
        // The cookie is no credential for getting another cookie.
        assertThat(send(HttpRequest.newBuilder(uri("/session")).header("Cookie", COOKIE_NAME + token).header("X-Sluice-Request", "1")
                .POST(HttpRequest.BodyPublishers.noBody())).statusCode()).isEqualTo(401);
    }

    @Test
    void theCookieFromAnOriginNotAllowedIs403WhileAnAllowedOriginGetsCredentialedCors() throws Exception {
        String token = token(Duration.ofMinutes(10));

        HttpResponse<String> evil = send(publish("{}").header("Cookie", COOKIE_NAME + token).header("Origin", "https://evil.example"));
        assertThat(evil.statusCode()).isEqualTo(403);
        assertThat(evil.headers().firstValue("Access-Control-Allow-Origin")).isEmpty();
        assertThat(HttpPublishTest.records(cluster.getBootstrapServers(), topic)).isEmpty();

        HttpResponse<String> app = send(publish("{}").header("Cookie", COOKIE_NAME + token).header("Origin", APP));
        assertThat(app.statusCode()).isEqualTo(200);
        assertThat(app.headers().firstValue("Access-Control-Allow-Origin")).hasValue(APP);
        assertThat(app.headers().firstValue("Access-Control-Allow-Credentials")).hasValue("true");
        assertThat(app.headers().allValues("Vary")).contains("origin");

        HttpResponse<String> preflight = send(HttpRequest.newBuilder(uri("/publish?endpoint=/x")).header("Origin", APP)
                .header("Access-Control-Request-Method", "POST").method("OPTIONS", HttpRequest.BodyPublishers.noBody()));
        assertThat(preflight.statusCode()).isEqualTo(204);
        assertThat(preflight.headers().firstValue("Access-Control-Allow-Origin")).hasValue(APP);
        assertThat(preflight.headers().firstValue("Access-Control-Allow-Methods")).hasValue("POST, OPTIONS");
        assertThat(preflight.headers().firstValue("Access-Control-Allow-Headers")).hasValue("Authorization, Content-Type, X-Sluice-Request");

        HttpResponse<String> evilPreflight = send(HttpRequest.newBuilder(uri("/session")).header("Origin", "https://evil.example")
                .header("Access-Control-Request-Method", "POST").method("OPTIONS", HttpRequest.BodyPublishers.noBody()));
        assertThat(evilPreflight.headers().firstValue("Access-Control-Allow-Origin")).isEmpty();
        assertThat(evilPreflight.headers().firstValue("Access-Control-Allow-Methods")).isEmpty();
    }

    @Test
    void aCookieReplayedAfterItsTokenExpiredIs401AndAnExpiredTokenGetsNoCookie() throws Exception {
        String token = token(Duration.ofSeconds(3));
        assertThat(session(token).statusCode()).isEqualTo(204);
        assertThat(send(publish("{\"before\": true}").header("Cookie", COOKIE_NAME + token)).statusCode()).isEqualTo(200);

        // Publishing with the cookie on one keep-alive connection until its token runs out: each is written until
        // then, none after (the connection does not keep trusting a token it validated once).
        int accepted = 1;
        try (RawHttp raw = new RawHttp(bridge.port())) {
            String request = RawHttp.request("POST", "/ws/publish?endpoint=/" + topic + "/room/1",
                    Map.of("Cookie", COOKIE_NAME + token, "Content-Type", "application/json", "X-Sluice-Request", "1"), "{\"after\": true}");
            long deadline = System.nanoTime() + Duration.ofSeconds(20).toNanos();
            int status = 0;
            while (status != 401 && System.nanoTime() < deadline) {
                raw.send(request);
                status = raw.read().status();
                if (status == 200) {
                    accepted++;
                }
                Thread.sleep(250);
            }
            assertThat(status).as("refused once expired").isEqualTo(401);
        }
        HttpResponse<String> replay = send(publish("{\"after\": true}").header("Cookie", COOKIE_NAME + token));
        assertThat(replay.statusCode()).isEqualTo(401);
        assertThat(replay.headers().firstValue("WWW-Authenticate")).hasValueSatisfying(v -> assertThat(v).startsWith("Bearer"));
        assertThat(JSON.readTree(replay.body()).get("code").asText()).isEqualTo("invalid_token");
        assertThat(HttpPublishTest.records(cluster.getBootstrapServers(), topic)).hasSize(accepted);

        HttpResponse<String> late = session(token);
        assertThat(late.statusCode()).isEqualTo(401);
        assertThat(late.headers().allValues("Set-Cookie")).isEmpty();
    }

    @Test
    void theCookieOpensAnEventStreamWithCredentialedCorsUntilItsTokenExpiresAndAnOtherOriginIs403() throws Exception {
        String token = token(Duration.ofSeconds(4));
        assertThat(session(token).statusCode()).isEqualTo(204);
        HttpRequest.Builder stream = HttpRequest.newBuilder(uri("/sse?endpoint=/" + topic + "/room/1"))
                .header("Cookie", COOKIE_NAME + token).header("Accept", "text/event-stream").GET();

        HttpResponse<String> evil = send(stream.copy().header("Origin", "https://evil.example"));
        assertThat(evil.statusCode()).isEqualTo(403);
        assertThat(evil.headers().firstValue("Access-Control-Allow-Origin")).isEmpty();
        HttpResponse<String> inUrl = send(HttpRequest.newBuilder(uri("/sse?endpoint=/" + topic + "/room/1&access_token=" + token)).GET());
        assertThat(inUrl.statusCode()).isEqualTo(400);
        assertThat(inUrl.body()).doesNotContain(token);

        // What a native EventSource with withCredentials sends from the allowed page: the cookie and its Origin.
        HttpResponse<java.io.InputStream> opened = HTTP.send(stream.copy().header("Origin", APP).build(), HttpResponse.BodyHandlers.ofInputStream());
        assertThat(opened.statusCode()).isEqualTo(200);
        assertThat(opened.headers().firstValue("Content-Type")).hasValueSatisfying(t -> assertThat(t).startsWith("text/event-stream"));
        assertThat(opened.headers().firstValue("Access-Control-Allow-Origin")).hasValue(APP);
        assertThat(opened.headers().firstValue("Access-Control-Allow-Credentials")).hasValue("true");
        List<String> events = new java.util.ArrayList<>();
        try (java.io.BufferedReader lines = new java.io.BufferedReader(new java.io.InputStreamReader(opened.body(),
                java.nio.charset.StandardCharsets.UTF_8))) {
            // The stream ends by itself when the token expires: a close event (4002), then the end of the body.
            for (String line = lines.readLine(); line != null; line = lines.readLine()) {
                if (line.startsWith("data: ")) {
                    events.add(JSON.readTree(line.substring(6)).path("type").asText() + ":" + JSON.readTree(line.substring(6)).path("code").asText());
                }
            }
        }
        assertThat(events).startsWith("connected:", "subscribed:").contains("expiring:").endsWith("close:4002");
        HttpResponse<String> replay = send(stream.copy().header("Origin", APP));
        assertThat(replay.statusCode()).isEqualTo(401);
        assertThat(replay.headers().firstValue("Access-Control-Allow-Origin")).as("a page can read why").hasValue(APP);
    }

    @Test
    void deleteAnswersWithACookieThatExpiresAtOnce() throws Exception {
        HttpResponse<String> deleted = send(HttpRequest.newBuilder(uri("/session")).DELETE());
        assertThat(deleted.statusCode()).isEqualTo(204);
        assertThat(deleted.headers().firstValue("Set-Cookie")).hasValueSatisfying(c ->
                assertThat(c).startsWith("__Host-sluice-token=; Path=/; Max-Age=0;").contains("HttpOnly").contains("SameSite=Strict").contains("Secure"));
        HttpResponse<String> put = send(HttpRequest.newBuilder(uri("/session")).PUT(HttpRequest.BodyPublishers.noBody()));
        assertThat(put.statusCode()).isEqualTo(405);
        assertThat(put.headers().firstValue("Allow")).hasValue("POST, DELETE, OPTIONS");
    }

    @Test
    void aTokenInTheQueryStringIs400AndNotEchoed() throws Exception {
        String token = token(Duration.ofMinutes(10));
        for (String name : List.of("token", "access_token", "jwt")) {
            HttpResponse<String> refused = send(HttpRequest.newBuilder(uri("/session?" + name + "=" + token)).POST(HttpRequest.BodyPublishers.noBody()));
            assertThat(refused.statusCode()).isEqualTo(400);
            assertThat(refused.body()).doesNotContain(token).contains("tokens in URLs end up in logs");
            assertThat(refused.headers().allValues("Set-Cookie")).isEmpty();
        }
    }
}
