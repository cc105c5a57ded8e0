package io.sluice.filter.jwt;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Date;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.stream.Stream;

import org.apache.kafka.clients.admin.Admin;

import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.SaslAuthenticationException;
import org.apache.kafka.common.errors.TopicAuthorizationException;
import org.apache.kafka.common.message.MetadataRequestData;
import org.apache.kafka.common.message.MetadataResponseData;
import org.apache.kafka.common.message.SaslAuthenticateResponseData;
import org.apache.kafka.common.message.SaslHandshakeRequestData;
import org.apache.kafka.common.message.SaslHandshakeResponseData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

import io.kroxylicious.testing.kafka.api.KafkaCluster;
import io.kroxylicious.testing.kafka.junit5ext.KafkaClusterExtension;
import io.sluice.auth.JwtConfig;
import io.sluice.auth.testing.TestIssuer;
import io.sluice.config.ConfigException;
import io.sluice.proxy.testing.KafkaWire;
import io.sluice.proxy.testing.ProxyFixture;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

/** SASL/OAUTHBEARER at the proxy with real kafka-clients (and a bare protocol client) against a real broker. */
@ExtendWith(KafkaClusterExtension.class)
class JwtAuthenticationTest {

    static KafkaCluster cluster;
    static JwtProxy jwt;

    private static final String TOPIC = "auth-orders";
    private static final Map<String, Object> ORDERS = Map.of("topics", Map.of("auth-*", List.of("read", "write")), "groups", List.of("auth-*"));

    @BeforeAll
    static void start() throws Exception {
        jwt = JwtProxy.start(cluster);
        jwt.createTopics(TOPIC);
    }

    @AfterAll
    static void stop() {
        jwt.close();
    }

    @Test
    void validRsaTokenAuthenticatesAndRecordsFlowBothWays() throws Exception {
        Map<String, Object> client = jwt.clientConfig(JwtProxy.token("alice", Duration.ofMinutes(5), ORDERS));
        String value = "order-" + UUID.randomUUID();

        try (KafkaProducer<String, String> producer = new KafkaProducer<>(client, new StringSerializer(), new StringSerializer())) {
            producer.send(new ProducerRecord<>(TOPIC, "k", value)).get();
        }
        assertThat(consumeAll(client, TOPIC, "auth-group-" + UUID.randomUUID())).extracting(ConsumerRecord::value).contains(value);
    }

    @Test
    void validEcTokenAuthenticates() throws Exception {
        Map<String, Object> client = jwt.clientConfig(TestIssuer.ec().token("carol", Duration.ofMinutes(5), ORDERS));

        try (Admin admin = Admin.create(client)) {
            assertThat(admin.listTopics().names().get()).contains(TOPIC);
        }
    }

    static Stream<Arguments> rejectedTokens() {
        TestIssuer rsa = TestIssuer.rsa();
        Duration minute = Duration.ofMinutes(1);
        return Stream.of(
                Arguments.of("expired", rsa.token("alice", minute, c -> c.expirationTime(new Date(System.currentTimeMillis() - 60_000))), "expired"),
                Arguments.of("not yet valid", rsa.token("alice", minute, c -> c.notBeforeTime(new Date(System.currentTimeMillis() + 600_000))), "not valid before"),
                Arguments.of("bad signature", TestIssuer.impostor().token("alice", minute, ORDERS), "signature does not verify"),
                Arguments.of("none algorithm", TestIssuer.unsigned(TestIssuer.claims("alice", minute).build()), "unsigned"),
                Arguments.of("wrong issuer", rsa.token("alice", minute, c -> c.issuer("https://evil.test")), "issuer"),
                Arguments.of("wrong audience", rsa.token("alice", minute, c -> c.audience("elsewhere")), "not meant for this service"),
                Arguments.of("missing subject", rsa.token("alice", minute, c -> c.subject(null)), "no sub claim"),
                Arguments.of("bad permissions", rsa.token("alice", minute, c -> c.claim("sluice", Map.of("topics", Map.of("x", List.of("own"))))),
                        "unknown operation"));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("rejectedTokens")
    void rejectedTokenFailsAuthenticationWithAClearErrorAndNoDataFlows(String what, String token, String reason) throws Exception {
        Map<String, Object> client = jwt.clientConfig(token);
        long before = endOffset(TOPIC);

        try (Admin admin = Admin.create(client)) {
            assertThatThrownBy(() -> admin.listTopics().names().get()).satisfies(e -> assertSaslFailure(e, reason));
        }
        Map<String, Object> producerConfig = new java.util.HashMap<>(client);
        producerConfig.put(ProducerConfig.MAX_BLOCK_MS_CONFIG, 10_000);
        try (KafkaProducer<String, String> producer = new KafkaProducer<>(producerConfig, new StringSerializer(), new StringSerializer())) {
            assertThatThrownBy(() -> producer.send(new ProducerRecord<>(TOPIC, "k", "must not arrive")).get()).satisfies(e -> assertSaslFailure(e, reason));
        }
        assertThat(endOffset(TOPIC)).isEqualTo(before);
    }

    @Test
    void tokenThatGrantsNothingAuthenticatesAndSeesNothing() throws Exception {
        Map<String, Object> client = jwt.clientConfig(JwtProxy.token("nobody", Duration.ofMinutes(5), Map.of()));

        try (Admin admin = Admin.create(client)) {
            assertThat(admin.listTopics().names().get()).isEmpty();
        }
        try (KafkaProducer<String, String> producer = new KafkaProducer<>(client, new StringSerializer(), new StringSerializer())) {
            assertThatThrownBy(() -> producer.send(new ProducerRecord<>(TOPIC, "k", "nope")).get()).hasCauseInstanceOf(TopicAuthorizationException.class);
        }
    }

    @Test
    void longLivedConnectionReauthenticatesWithFreshTokens() throws Exception {
        // Clients re-authenticate at 85-95 % of the lifetime; a longer lifetime leaves a loaded machine more slack
        // (at 10 s, a 2-core machine running other builds once missed the window twice).
        Duration lifetime = Duration.ofSeconds(15);
        Map<String, Object> client = jwt.clientConfig(() -> JwtProxy.token("alice", lifetime, ORDERS));
        double acceptedBefore = jwt.metric("sluice_jwt_authentications_total", "outcome=\"accepted\"");
        double openedBefore = jwt.metric("sluice_client_connections_opened_total", "");
        double expiredBefore = jwt.metric("sluice_jwt_sessions_expired_total", "");

        try (KafkaProducer<String, String> producer = new KafkaProducer<>(client, new StringSerializer(), new StringSerializer())) {
            long end = System.nanoTime() + lifetime.multipliedBy(9).dividedBy(4).toNanos();
            while (System.nanoTime() < end) {
                producer.send(new ProducerRecord<>(TOPIC, "k", "tick")).get();
                // Done at the second re-authentication (the third token) and a record sent after it; else 2.25 lifetimes.
                if (TestTokenCallbackHandler.issued((String) client.get("sasl.jaas.config")) >= 3) {
                    producer.send(new ProducerRecord<>(TOPIC, "k", "after")).get();
                    break;
                }
                Thread.sleep(200);
            }
        }

        assertThat(TestTokenCallbackHandler.issued((String) client.get("sasl.jaas.config"))).isGreaterThanOrEqualTo(3);
        double accepted = jwt.metric("sluice_jwt_authentications_total", "outcome=\"accepted\"") - acceptedBefore;
        double opened = jwt.metric("sluice_client_connections_opened_total", "") - openedBefore;
        assertThat(accepted).as("authentications beyond one per connection are re-authentications").isGreaterThan(opened);
        assertThat(jwt.metric("sluice_jwt_sessions_expired_total", "") - expiredBefore).isZero();
    }

    // ---- with a bare protocol client ----

    @Test
    void requestBeforeAuthenticationClosesTheConnection() throws Exception {
        try (KafkaWire wire = new KafkaWire(jwt.proxy.bootstrapPort())) {
            wire.send(ApiKeys.METADATA, (short) 12, new MetadataRequestData());
            assertThat(wire.closedByPeer()).isTrue();
        }
    }

    @Test
    void unsupportedMechanismIsRefusedNamingOauthbearer() throws Exception {
        try (KafkaWire wire = new KafkaWire(jwt.proxy.bootstrapPort())) {
            SaslHandshakeResponseData response = wire.call(ApiKeys.SASL_HANDSHAKE, (short) 1, new SaslHandshakeRequestData().setMechanism("PLAIN"));
            assertThat(response.errorCode()).isEqualTo(Errors.UNSUPPORTED_SASL_MECHANISM.code());
            assertThat(response.mechanisms()).containsExactly("OAUTHBEARER");
            assertThat(wire.closedByPeer()).isTrue();
        }
    }

    @Test
    void saslAuthenticateResponseCarriesTheSessionLifetime() throws Exception {
        try (KafkaWire wire = new KafkaWire(jwt.proxy.bootstrapPort())) {
            SaslAuthenticateResponseData response = wire.authenticate(JwtProxy.token("alice", Duration.ofSeconds(60), ORDERS), (short) 2);

            assertThat(response.errorCode()).isZero();
            assertThat(response.sessionLifetimeMs()).isPositive().isLessThanOrEqualTo(60_000);
        }
    }

    @Test
    void aFarFutureExpiryStillEndsTheSessionAtTheMaximumSessionLifetime() throws Exception {
        try (KafkaWire wire = new KafkaWire(jwt.proxy.bootstrapPort())) {
            SaslAuthenticateResponseData response = wire.authenticate(JwtProxy.token("alice", Duration.ofDays(3650), ORDERS), (short) 2);

            assertThat(response.errorCode()).isZero();
            // The proxy's config sets no maxSessionLifetime: the default (1 h) applies, not the token's ten years.
            assertThat(response.sessionLifetimeMs()).isPositive()
                    .isLessThanOrEqualTo(JwtConfig.DEFAULT_MAX_SESSION_LIFETIME.toMillis())
                    .isGreaterThan(JwtConfig.DEFAULT_MAX_SESSION_LIFETIME.minusMinutes(1).toMillis());
        }
    }

    @Test
    void tokenValuesWithLineBreaksReachTheLogEscaped() throws Exception {
        ch.qos.logback.classic.Logger logger = (ch.qos.logback.classic.Logger) org.slf4j.LoggerFactory.getLogger(JwtAuthFilter.class);
        ListAppender<ILoggingEvent> events = new ListAppender<>();
        events.start();
        logger.addAppender(events);
        String forged = "\r\n2026-01-01 00:00:00 INFO  forged log line\u2028";
        try {
            // Signed by the trusted key, so the issuer is read and quoted; then a key id nobody knows, also quoted.
            String wrongIssuer = TestIssuer.rsa().token("alice", Duration.ofMinutes(5), c -> c.issuer("https://evil.test" + forged));
            String unknownKey = TestIssuer.rsa("kid" + forged).token("alice", Duration.ofMinutes(5), ORDERS);
            String subject = TestIssuer.rsa().token("alice" + forged, Duration.ofMinutes(5), ORDERS);
            for (String token : List.of(wrongIssuer, unknownKey, subject)) {
                try (KafkaWire wire = new KafkaWire(jwt.proxy.bootstrapPort())) {
                    assertThat(wire.authenticate(token, (short) 2).errorCode()).isEqualTo(Errors.SASL_AUTHENTICATION_FAILED.code());
                }
            }
        } finally {
            logger.detachAppender(events);
        }
        List<String> lines = events.list.stream().map(ILoggingEvent::getFormattedMessage).filter(m -> m.contains("authentication failed")).toList();
        assertThat(lines).hasSizeGreaterThanOrEqualTo(3)
                .allSatisfy(line -> assertThat(line).doesNotContain("\r", "\n", "\u2028"));
        assertThat(lines).anySatisfy(line -> assertThat(line).contains("evil.test\\u000d\\u000a2026-01-01"));
        assertThat(lines).anySatisfy(line -> assertThat(line).contains("kid\\u000d\\u000a2026-01-01"));
        assertThat(lines).anySatisfy(line -> assertThat(line).contains("sub claim contains control characters"));
    }

    @Test
    void connectionWhoseTokenExpiredWithoutReauthenticationIsClosed() throws Exception {
        try (KafkaWire wire = new KafkaWire(jwt.proxy.bootstrapPort())) {
            // v0 carries no session lifetime: this client has no reason to re-authenticate, and does not.
            assertThat(wire.authenticate(JwtProxy.token("alice", Duration.ofSeconds(3), ORDERS), (short) 0).errorCode()).isZero();
            MetadataResponseData metadata = wire.call(ApiKeys.METADATA, (short) 12, new MetadataRequestData().setTopics(null));
            assertThat(metadata.topics()).extracting(MetadataResponseData.MetadataResponseTopic::name).contains(TOPIC);

            await().atMost(Duration.ofSeconds(20)).pollInterval(Duration.ofMillis(500)).until(() -> {
                try {
                    wire.call(ApiKeys.METADATA, (short) 12, new MetadataRequestData().setTopics(null));
                    return false;
                } catch (java.io.IOException closed) {
                    return true;
                }
            });
        }
    }

    @Test
    void reauthenticationAsSomeoneElseIsRefusedAndCloses() throws Exception {
        try (KafkaWire wire = new KafkaWire(jwt.proxy.bootstrapPort())) {
            assertThat(wire.authenticate(JwtProxy.token("alice", Duration.ofMinutes(1), ORDERS), (short) 2).errorCode()).isZero();

            SaslAuthenticateResponseData again = wire.authenticate(JwtProxy.token("mallory", Duration.ofMinutes(1), ORDERS), (short) 2);

            assertThat(again.errorCode()).isEqualTo(Errors.SASL_AUTHENTICATION_FAILED.code());
            assertThat(again.errorMessage()).contains("cannot change the principal");
            assertThat(wire.closedByPeer()).isTrue();
        }
    }

    @Test
    void badFilterConfigStopsTheProxyNamingTheField() {
        assertThatThrownBy(() -> ProxyFixture.start(cluster.getBootstrapServers(), "", """
                filterDefinitions:
                  - name: jwt
                    type: JwtAuth
                    config:
                      jwks: /nonexistent/jwks.json
                      audience: kafka
                      algorithms: [none]
                defaultFilters: [jwt]
                """)).isInstanceOf(ConfigException.class)
                .hasMessageContaining("filterDefinitions[0].config: ")
                .hasMessageContaining("issuer: is required")
                .hasMessageContaining("algorithms: 'none' is never accepted");
    }

    // ---- helpers ----

    private static void assertSaslFailure(Throwable thrown, String reason) {
        Throwable t = thrown;
        while (t != null && !(t instanceof SaslAuthenticationException)) {
            t = t.getCause();
        }
        assertThat(t).as("a SaslAuthenticationException in " + thrown).isNotNull();
        assertThat(t.getMessage()).contains("Authentication failed").contains(reason);
    }

    private static long endOffset(String topic) throws Exception {
        try (Admin admin = Admin.create(cluster.getKafkaClientConfiguration())) {
            return admin.listOffsets(Map.of(new TopicPartition(topic, 0), org.apache.kafka.clients.admin.OffsetSpec.latest()))
                    .partitionResult(new TopicPartition(topic, 0)).get().offset();
        }
    }

    static List<ConsumerRecord<String, String>> consumeAll(Map<String, Object> client, String topic, String group) {
        Map<String, Object> config = new java.util.HashMap<>(client);
        config.put(ConsumerConfig.GROUP_ID_CONFIG, group);
        config.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
        List<ConsumerRecord<String, String>> records = new ArrayList<>();
        try (KafkaConsumer<String, String> consumer = new KafkaConsumer<>(config, new StringDeserializer(), new StringDeserializer())) {
            consumer.subscribe(List.of(topic));
            long deadline = System.nanoTime() + Duration.ofSeconds(20).toNanos();
            while (records.isEmpty() && System.nanoTime() < deadline) {
                consumer.poll(Duration.ofMillis(500)).forEach(records::add);
            }
        }
        return records;
    }
}
