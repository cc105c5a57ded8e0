package io.sluice.filter.jwt;

import java.io.DataOutputStream;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.message.ApiVersionsRequestData;
import org.apache.kafka.common.message.ApiVersionsResponseData;
import org.apache.kafka.common.message.MetadataRequestData;
import org.apache.kafka.common.message.MetadataResponseData;
import org.apache.kafka.common.message.SaslAuthenticateRequestData;
import org.apache.kafka.common.message.SaslAuthenticateResponseData;
import org.apache.kafka.common.message.SaslHandshakeRequestData;
import org.apache.kafka.common.message.SaslHandshakeResponseData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import io.kroxylicious.testing.kafka.api.KafkaCluster;
import io.kroxylicious.testing.kafka.junit5ext.KafkaClusterExtension;
import io.sluice.proxy.testing.KafkaWire;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The limits on connections that have not authenticated to JwtAuth (network.preAuthentication): frame size
 * checked on the four size bytes, a deadline, a cap on requests queued behind a token being validated, and no
 * broker connection for a client that asks nothing of the broker. Throughout, a real producer with a valid
 * token keeps working, and may send frames above the pre-authentication limit.
 */
@ExtendWith(KafkaClusterExtension.class)
class PreAuthenticationLimitsTest {

    private static final String TOPIC = "preauth-orders";
    private static final Map<String, Object> ORDERS = Map.of("topics", Map.of("preauth-*", List.of("read", "write", "describe")));
    private static final Duration TIMEOUT = Duration.ofSeconds(3);
    private static final int MAX_QUEUED = 2;
    private static final int PRE_AUTH_MAX_FRAME = 512 * 1024;

    static KafkaCluster cluster;
    static JwtProxy jwt;
    static KafkaProducer<String, String> producer;

    @BeforeAll
    static void start() throws Exception {
        jwt = JwtProxy.start(cluster, "", List.of("jwt"), """
                network:
                  preAuthentication:
                    timeout: %dms
                    maxQueuedRequests: %d
                """.formatted(TIMEOUT.toMillis(), MAX_QUEUED));
        jwt.createTopics(TOPIC);
        Map<String, Object> config = new java.util.HashMap<>(jwt.clientConfig(JwtProxy.token("alice", Duration.ofMinutes(10), ORDERS)));
        config.put(ProducerConfig.MAX_REQUEST_SIZE_CONFIG, 2 * 1024 * 1024);
        producer = new KafkaProducer<>(config, new StringSerializer(), new StringSerializer());
        producer.send(new ProducerRecord<>(TOPIC, "k", "first")).get();
    }

    @AfterAll
    static void stop() {
        producer.close();
        jwt.close();
    }

    @AfterEach
    void authenticatedClientKeepsWorking() throws Exception {
        assertThat(producer.send(new ProducerRecord<>(TOPIC, "k", "still here")).get().offset()).isPositive();
    }

    @Test
    void oversizedFrameBeforeAuthenticationIsRefusedOnItsSizeAlone() throws Exception {
        double before = rejected("pre_auth_frame_too_large");
        try (KafkaWire wire = new KafkaWire(jwt.proxy.bootstrapPort())) {
            SaslHandshakeResponseData handshake = wire.call(ApiKeys.SASL_HANDSHAKE, (short) 1, new SaslHandshakeRequestData().setMechanism("OAUTHBEARER"));
            assertThat(handshake.errorCode()).isZero();
            // The size and header of a 1 MiB SaslAuthenticate; the body is never sent.
            DataOutputStream out = new DataOutputStream(wire.socket().getOutputStream());
            boolean closedWhileWriting = false;
            try {
                out.writeInt(1024 * 1024);
                out.flush();
                out.writeShort(ApiKeys.SASL_AUTHENTICATE.id);
                out.writeShort(2);
                out.writeInt(2);
                out.flush();
            } catch (java.net.SocketException e) {
                // The proxy may close on the four size bytes before the header is even written: a reset here is the
                // refusal this test is about.
                closedWhileWriting = true;
            }

            assertThat(closedWhileWriting || wire.closedAfterDraining()).as("closed before the body was sent").isTrue();
        }
        assertThat(rejected("pre_auth_frame_too_large")).isEqualTo(before + 1);
    }

    @Test
    void authenticatedClientMaySendFramesAboveThePreAuthenticationLimit() throws Exception {
        String big = "x".repeat(PRE_AUTH_MAX_FRAME + 100_000);

        assertThat(producer.send(new ProducerRecord<>(TOPIC, "big", big)).get().serializedValueSize()).isEqualTo(big.length());
    }

    @Test
    void silentConnectionIsClosedAtThePreAuthenticationDeadlineWithoutABrokerConnection() throws Exception {
        double before = rejected("pre_auth_timeout");
        int brokerConnectionsBefore = brokerConnections();
        assertThat(brokerConnectionsBefore).as("the producer's and discovery's broker connections").isPositive();
        List<KafkaWire> silent = new ArrayList<>();
        try {
            long start = System.nanoTime();
            for (int i = 0; i < 5; i++) {
                silent.add(new KafkaWire(jwt.proxy.bootstrapPort()));
            }
            Thread.sleep(500);
            assertThat(brokerConnections()).as("broker connections opened for silent clients").isLessThan(brokerConnectionsBefore + 5);

            for (KafkaWire wire : silent) {
                assertThat(wire.closedAfterDraining()).isTrue();
            }
            long elapsedMs = Duration.ofNanos(System.nanoTime() - start).toMillis();
            assertThat(elapsedMs).isBetween(TIMEOUT.toMillis() - 200, TIMEOUT.toMillis() + 5_000);
        } finally {
            for (KafkaWire wire : silent) {
                wire.close();
            }
        }
        assertThat(rejected("pre_auth_timeout")).isEqualTo(before + 5);
    }

    @Test
    void anonymousApiVersionsIsAnsweredFromTheClustersCachedAnswerWithoutABrokerConnectionEach() throws Exception {
        ApiVersionsResponseData first;
        try (KafkaWire wire = new KafkaWire(jwt.proxy.bootstrapPort())) {
            // Whatever has happened before, this exchange leaves the cluster's answer at v3 cached.
            first = wire.call(ApiKeys.API_VERSIONS, (short) 3, new ApiVersionsRequestData().setClientSoftwareName("wire").setClientSoftwareVersion("1"));
        }
        assertThat(first.errorCode()).isZero();
        int brokerConnectionsBefore = brokerConnections();
        List<KafkaWire> anonymous = new ArrayList<>();
        try {
            for (int i = 0; i < 10; i++) {
                KafkaWire wire = new KafkaWire(jwt.proxy.bootstrapPort());
                anonymous.add(wire);
                ApiVersionsResponseData answer = wire.call(ApiKeys.API_VERSIONS, (short) 3,
                        new ApiVersionsRequestData().setClientSoftwareName("wire").setClientSoftwareVersion("1"));
                assertThat(answer).as("the same answer, narrowed by the same filters, as a broker's").isEqualTo(first);
            }
            assertThat(brokerConnections()).as("broker connections opened for ten anonymous ApiVersions").isLessThan(brokerConnectionsBefore + 2);

            // The cached answer is not a dead end: the client authenticates and its requests reach the broker.
            KafkaWire wire = anonymous.get(0);
            assertThat(wire.authenticate(JwtProxy.token("alice", Duration.ofMinutes(5), ORDERS), (short) 2).errorCode()).isZero();
            MetadataResponseData metadata = wire.call(ApiKeys.METADATA, (short) 12, new MetadataRequestData().setTopics(List.of(
                    new MetadataRequestData.MetadataRequestTopic().setName(TOPIC))));
            assertThat(metadata.topics().find(TOPIC).errorCode()).isZero();
        } finally {
            for (KafkaWire wire : anonymous) {
                wire.close();
            }
        }
    }

    @Test
    void requestsQueuedBehindATokenBeingValidatedBeyondTheCapCloseTheConnection() throws Exception {
        double before = rejected("pre_auth_queue_full");
        String token = JwtProxy.token("mallory", Duration.ofMinutes(5), ORDERS);
        try (KafkaWire wire = new KafkaWire(jwt.proxy.bootstrapPort())) {
            authenticateThenApiVersions(wire, token, MAX_QUEUED + 3);

            assertThat(wire.closedAfterDraining()).isTrue();
        }
        assertThat(rejected("pre_auth_queue_full")).isEqualTo(before + 1);
    }

    @Test
    void requestsUpToTheCapBehindATokenBeingValidatedAreServed() throws Exception {
        String token = JwtProxy.token("bob", Duration.ofMinutes(5), ORDERS);
        try (KafkaWire wire = new KafkaWire(jwt.proxy.bootstrapPort())) {
            wire.socket().setSoTimeout(2_000);
            authenticateThenApiVersions(wire, token, MAX_QUEUED);

            assertThat(wire.closedAfterDraining()).as("closed").isFalse();
        }
    }

    /**
     * SaslHandshake, SaslAuthenticate with the token and {@code apiVersions} ApiVersions requests in one write, so
     * that they arrive together and the ApiVersions queue behind the token while it is validated off the event loop.
     */
    private static void authenticateThenApiVersions(KafkaWire wire, String token, int apiVersions) throws java.io.IOException {
        java.io.ByteArrayOutputStream frames = new java.io.ByteArrayOutputStream();
        frames.write(wire.frame(ApiKeys.SASL_HANDSHAKE, (short) 1, new SaslHandshakeRequestData().setMechanism("OAUTHBEARER")));
        frames.write(wire.frame(ApiKeys.SASL_AUTHENTICATE, (short) 2, new SaslAuthenticateRequestData()
                .setAuthBytes(("n,,\u0001auth=Bearer " + token + "\u0001\u0001").getBytes(java.nio.charset.StandardCharsets.UTF_8))));
        for (int i = 0; i < apiVersions; i++) {
            frames.write(wire.frame(ApiKeys.API_VERSIONS, (short) 3, new ApiVersionsRequestData()
                    .setClientSoftwareName("wire").setClientSoftwareVersion("1")));
        }
        wire.sendRaw(frames.toByteArray());
    }

    private static double rejected(String reason) {
        return jwt.metric("sluice_client_connections_rejected_total", "reason=\"" + reason + "\"");
    }

    /** Established TCP connections to the broker's client port, as the kernel lists them (Linux). */
    private static int brokerConnections() throws Exception {
        int port = Integer.parseInt(cluster.getBootstrapServers().split(",")[0].replaceAll(".*:", ""));
        String localPort = String.format(":%04X", port);
        int count = 0;
        for (String table : List.of("/proc/net/tcp", "/proc/net/tcp6")) {
            java.nio.file.Path path = java.nio.file.Path.of(table);
            if (!java.nio.file.Files.exists(path)) {
                continue;
            }
            for (String line : java.nio.file.Files.readAllLines(path)) {
                String[] fields = line.trim().split("\\s+");
                // sl local_address rem_address st ...; 01 is ESTABLISHED, and the broker's side has the broker's port.
                if (fields.length > 3 && fields[1].endsWith(localPort) && fields[3].equals("01")) {
                    count++;
                }
            }
        }
        return count;
    }

    /**
     * JwtAuth's {@code maxQueuedValidations}: with the JWKS endpoint slow, the pool's two threads wait for it, one
     * validation waits in the queue, and every SaslAuthenticate beyond that is refused at once as busy (not left
     * waiting, not blamed on its token) and counted; once the keys are there, a later client authenticates.
     */
    @Test
    void tokenValidationsBeyondTheQueueAreRefusedAsBusyAndCounted() throws Exception {
        int clients = 6;
        try (JwtProxy slow = JwtProxy.withConfig(cluster, "maxQueuedValidations: 1\njwksTimeout: 10s\n")) {
            slow.jwks.delay(Duration.ofSeconds(3));
            String token = JwtProxy.token("alice", Duration.ofMinutes(10), ORDERS);
            List<KafkaWire> wires = new ArrayList<>();
            java.util.concurrent.ExecutorService threads = java.util.concurrent.Executors.newFixedThreadPool(clients);
            try {
                for (int i = 0; i < clients; i++) {
                    KafkaWire wire = new KafkaWire(slow.proxy.bootstrapPort());
                    wires.add(wire);
                    assertThat(wire.<SaslHandshakeResponseData>call(ApiKeys.SASL_HANDSHAKE, (short) 1,
                            new SaslHandshakeRequestData().setMechanism("OAUTHBEARER")).errorCode()).isZero();
                }
                byte[] message = ("n,,\u0001auth=Bearer " + token + "\u0001\u0001").getBytes(java.nio.charset.StandardCharsets.UTF_8);
                List<java.util.concurrent.Future<SaslAuthenticateResponseData>> answers = new ArrayList<>();
                for (KafkaWire wire : wires) {
                    answers.add(threads.submit(() -> wire.call(ApiKeys.SASL_AUTHENTICATE, (short) 2,
                            new SaslAuthenticateRequestData().setAuthBytes(message))));
                }
                int accepted = 0;
                List<String> busy = new ArrayList<>();
                for (java.util.concurrent.Future<SaslAuthenticateResponseData> answer : answers) {
                    SaslAuthenticateResponseData response = answer.get(30, java.util.concurrent.TimeUnit.SECONDS);
                    if (response.errorCode() == 0) {
                        accepted++;
                    } else {
                        assertThat(org.apache.kafka.common.protocol.Errors.forCode(response.errorCode()))
                                .isEqualTo(org.apache.kafka.common.protocol.Errors.SASL_AUTHENTICATION_FAILED);
                        busy.add(response.errorMessage());
                    }
                }

                // Two on the pool's threads, one in the queue of one; the other three refused without waiting.
                assertThat(accepted).isEqualTo(3);
                assertThat(busy).hasSize(clients - 3).allSatisfy(m -> assertThat(m).contains("the proxy is busy"));
                assertThat(slow.metric("sluice_jwt_authentications_total", "outcome=\"busy\"")).isEqualTo(clients - 3);
            } finally {
                threads.shutdownNow();
                for (KafkaWire wire : wires) {
                    wire.close();
                }
            }

            try (KafkaWire later = new KafkaWire(slow.proxy.bootstrapPort())) {
                assertThat(later.authenticate(token, (short) 2).errorCode()).isZero();
            }
            assertThat(slow.metric("sluice_jwt_authentications_total", "outcome=\"accepted\"")).isEqualTo(4);
        }
    }
}
