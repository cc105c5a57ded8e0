package io.sluice.bridge.server;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;

import com.fasterxml.jackson.databind.JsonNode;
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
import io.sluice.bridge.protocol.CloseCodes;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The bridge with the JWT authenticator `sluice bridge` builds: real RS256 tokens from {@link TestIssuer}, keys from a
 * real JWKS URL, permissions from the token's "sluice" claim, real Kafka.
 */
@ExtendWith(KafkaClusterExtension.class)
class JwtAuthenticationTest {

    @BrokerCluster(numBrokers = 1)
    static KafkaCluster cluster;

    @RegisterExtension
    static final KafkaHelper kafka = KafkaHelper.perClass(() -> cluster.getBootstrapServers());
    static JwksServer jwks;
    static final TestIssuer ISSUER = TestIssuer.rsa();

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
        // No clock skew, so a token's session ends exactly at its exp and expiry tests take seconds.
        bridge = BridgeFixture.start(cluster.getBootstrapServers(), "node-jwt", "", BridgeFixture.jwtAuth(jwks.url(), TestIssuer.ISSUER, TestIssuer.AUDIENCE, "0s"), "topics: " + topic);
    }

    @AfterEach
    void closeBridge() {
        bridge.close();
    }

    /** Read on live/*, write on live/team-a/* of the test topic. */
    private String token(String subject, Duration lifetime) {
        return ISSUER.token(subject, lifetime, Map.of("keys",
                Map.of(topic, Map.of("read", List.of("live/*"), "write", List.of("live/team-a/*")))));
    }

    @Test
    void validTokenSubscribesToPermittedEndpointsAndReceivesRecords() throws Exception {
        try (WsClient client = WsClient.connect(bridge.port())) {
            client.request("connect", m -> m.put("token", token("alice", Duration.ofMinutes(5))));
            JsonNode connected = client.expect("connected");
            assertThat(connected.get("subject").asText()).isEqualTo("alice");
            assertThat(connected.get("expiresAt").asLong()).isGreaterThan(System.currentTimeMillis());

            client.subscribe("/" + topic + "/live/football");
            client.subscribe("/" + topic + "/live/tennis/*");
            long football = kafka.send(topic, "live/football", "{\"home\":1}");
            long tennis = kafka.send(topic, "live/tennis/final", "{\"set\":2}");
            assertThat(client.messages(2)).extracting(m -> m.get("seq").asLong()).containsExactly(football, tennis);

            client.request("publish", m -> m.put("endpoint", "/" + topic + "/live/team-a/news").putObject("payload").put("goal", true));
            assertThat(client.expect("ack").get("seq").asLong()).isGreaterThan(tennis);
        }
    }

    @Test
    void endpointsTheTokenDoesNotCoverAreForbidden() {
        try (WsClient client = WsClient.connected(bridge.port(), token("alice", Duration.ofMinutes(5)))) {
            for (String endpoint : List.of("/" + topic + "/results", "/" + topic + "/*", "/" + topic + "/li/*")) {
                client.request("subscribe", m -> m.put("endpoint", endpoint));
                assertThat(client.expect("error").get("code").asText()).as(endpoint).isEqualTo("forbidden");
            }
            client.request("publish", m -> m.put("endpoint", "/" + topic + "/live/team-b").put("payload", "x"));
            assertThat(client.expect("error").get("code").asText()).isEqualTo("forbidden");
        }
    }

    @Test
    void expiredOrForgedTokensCloseWith4001AndAReasonWithoutTheToken() {
        String expired = token("alice", Duration.ofMinutes(-5));
        String forged = TestIssuer.impostor().token("alice", Duration.ofMinutes(5), Map.of());
        for (String token : List.of(expired, forged)) {
            try (WsClient client = WsClient.connect(bridge.port())) {
                client.request("connect", m -> m.put("token", token));
                assertThat(client.awaitClose()).isEqualTo(CloseCodes.AUTHENTICATION_FAILED);
                assertThat(client.closeReason()).isNotBlank().doesNotContain(token).doesNotContain(token.split("\\.")[1]);
            }
        }
    }

    @Test
    void refreshingBeforeExpiryKeepsTheConnectionPastTheOldExpiry() throws Exception {
        try (WsClient client = WsClient.connect(bridge.port())) {
            client.request("connect", m -> m.put("token", token("alice", Duration.ofSeconds(3))));
            Instant firstExpiry = Instant.ofEpochMilli(client.expect("connected").get("expiresAt").asLong());
            client.subscribe("/" + topic + "/live/football");

            client.expect("expiring");
            client.request("refresh", m -> m.put("token", token("alice", Duration.ofMinutes(5))));
            assertThat(client.expect("refreshed").get("expiresAt").asLong()).isGreaterThan(firstExpiry.toEpochMilli());

            await().atMost(Duration.ofSeconds(30)).until(() -> Instant.now().isAfter(firstExpiry.plusSeconds(1)));
            long seq = kafka.send(topic, "live/football", "{\"home\":2}");
            assertThat(client.messages(1).get(0).get("seq").asLong()).isEqualTo(seq);
            assertThat(client.isOpen()).isTrue();
        }
    }

    @Test
    void anUnrefreshedTokenClosesTheConnectionWith4002() {
        try (WsClient client = WsClient.connected(bridge.port(), token("alice", Duration.ofSeconds(2)))) {
            client.expect("expiring");
            assertThat(client.awaitClose()).isEqualTo(CloseCodes.TOKEN_EXPIRED);
        }
    }

    @Test
    void aRefreshForAnotherSubjectIsRejectedAndTheOldTokenStays() throws Exception {
        try (WsClient client = WsClient.connected(bridge.port(), token("alice", Duration.ofMinutes(5)))) {
            client.subscribe("/" + topic + "/live/football");
            client.request("refresh", m -> m.put("token", token("mallory", Duration.ofMinutes(10))));
            JsonNode error = client.expect("error");
            assertThat(error.get("code").asText()).isEqualTo("invalid_token");

            long seq = kafka.send(topic, "live/football", "{\"home\":3}");
            assertThat(client.messages(1).get(0).get("seq").asLong()).isEqualTo(seq);
        }
    }

    /**
     * {@code auth.jwt.maxQueuedValidations}: with the JWKS endpoint slow, two validations wait for it on the pool's
     * threads and one in the queue; every other {@code connect} is refused at once with 1013 (try again later, same
     * token), not 4001, and counted. Once the keys are in, a later client connects with the same token.
     */
    @Test
    void connectsBeyondTheValidationQueueCloseWith1013AndALaterClientConnects() throws Exception {
        int clients = 6;
        try (JwksServer slowJwks = new JwksServer(ISSUER.jwks());
             BridgeFixture busy = BridgeFixture.start(cluster.getBootstrapServers(), "node-busy", "", """
                     jwt:
                       jwks: "%s"
                       issuer: "%s"
                       audience: "%s"
                       allowHttpJwks: true
                       jwksTimeout: 10s
                       maxQueuedValidations: 1
                     """.formatted(slowJwks.url(), TestIssuer.ISSUER, TestIssuer.AUDIENCE), "topics: " + topic)) {
            slowJwks.delay(Duration.ofSeconds(3));
            String token = token("alice", Duration.ofMinutes(5));
            List<WsClient> connecting = new java.util.ArrayList<>();
            try {
                for (int i = 0; i < clients; i++) {
                    connecting.add(WsClient.connect(busy.port()));
                }
                for (WsClient client : connecting) {
                    client.request("connect", m -> m.put("token", token));
                }
                int connected = 0;
                int retryLater = 0;
                for (WsClient client : connecting) {
                    JsonNode first = client.poll(Duration.ofSeconds(20));
                    if (first != null && first.path("type").asText().equals("connected")) {
                        connected++;
                    } else {
                        assertThat(client.awaitClose()).as("close code after %s", first).isEqualTo(CloseCodes.TRY_AGAIN_LATER);
                        assertThat(client.closeReason()).contains("busy").doesNotContain(token);
                        retryLater++;
                    }
                }

                assertThat(connected).isEqualTo(3);
                assertThat(retryLater).isEqualTo(clients - 3);
                assertThat(busy.metric("sluice_bridge_requests_refused_total", "reason=\"token_validation_busy\"")).isEqualTo(clients - 3);
                assertThat(busy.metric("sluice_bridge_auth_failures_total", "")).isZero();
            } finally {
                connecting.forEach(WsClient::close);
            }

            try (WsClient later = WsClient.connected(busy.port(), token)) {
                assertThat(later.isOpen()).isTrue();
            }
        }
    }
}
