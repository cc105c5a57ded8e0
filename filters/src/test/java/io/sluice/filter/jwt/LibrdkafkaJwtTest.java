package io.sluice.filter.jwt;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.IntStream;

import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import com.fasterxml.jackson.databind.JsonNode;

import io.kroxylicious.testing.kafka.api.KafkaCluster;
import io.kroxylicious.testing.kafka.common.BrokerConfig;
import io.kroxylicious.testing.kafka.junit5ext.KafkaClusterExtension;
import io.sluice.filter.clients.Librdkafka;
import io.sluice.proxy.testing.KafkaReads;

import static io.sluice.filter.clients.Librdkafka.each;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * JwtAuth judged by librdkafka (confluent-kafka): SASL/OAUTHBEARER with the token handed over by {@code oauth_cb},
 * key rules on Produce and Fetch, and topic visibility, through a proxy with the default pre-authentication limits and
 * through one with the strictest; a Java client reads the broker directly to see what was really written.
 */
@ExtendWith(KafkaClusterExtension.class)
class LibrdkafkaJwtTest {

    private static final String ORDERS = "lk-orders";
    private static final String SCORES = "lk-scores";
    private static final String SCORES_WRITE = "lk-scores-w";
    private static final String SECRET = "lk-secret";
    private static final String STRICT = "lk-strict";
    private static final Map<String, Object> ALICE = Map.of(
            "topics", Map.of(ORDERS, List.of("read", "write"), STRICT, List.of("read", "write")),
            "keys", Map.of("lk-scores*", Map.of("read", List.of("live/*"), "write", List.of("live/team-a/*"))),
            "groups", List.of("lk-app-*"));

    @BrokerConfig(name = "auto.create.topics.enable", value = "true")
    static KafkaCluster cluster;
    static JwtProxy jwt;
    static Librdkafka alice;

    @BeforeAll
    static void start() throws Exception {
        // No network section: the default pre-authentication limits (512 KiB frames, 20 s, 8 queued requests).
        jwt = JwtProxy.start(cluster);
        jwt.createTopics(ORDERS, SCORES, SCORES_WRITE, SECRET, STRICT);
        alice = Librdkafka.of(jwt.proxy.bootstrapServers()).token(JwtProxy.token("alice", Duration.ofMinutes(10), ALICE));
    }

    @AfterAll
    static void stop() {
        jwt.close();
    }

    @Test
    void producesAndConsumesInAGroupWithATokenFromOauthCbUnderTheDefaultPreAuthenticationLimits() {
        List<Map.Entry<String, String>> records = IntStream.range(0, 20).mapToObj(i -> Map.entry("order-" + i, "amount=" + i)).toList();
        JsonNode produced = alice.with("compression.type", "lz4").produce(ORDERS, records);
        assertThat(each(produced, "deliveries", "error")).hasSize(20).containsOnlyNulls();
        assertThat(produced.get("clientErrors")).isEmpty();

        JsonNode consumed = alice.consume(ORDERS, "lk-app-orders", 20, 20);
        assertThat(each(consumed, "records", "value")).containsExactlyElementsOf(records.stream().map(Map.Entry::getValue).toList());
        assertThat(consumed.get("committed").get(ORDERS + "-0").asLong()).isEqualTo(20);
        assertThat(consumed.get("fetchErrors")).isEmpty();
        assertThat(consumed.get("clientErrors")).isEmpty();
        assertThat(preAuthenticationRejections(jwt)).as("connections refused by a pre-authentication limit").isZero();
        assertThat(jwt.metric("sluice_jwt_authentications_total", "outcome=\"accepted\"")).isPositive();
    }

    @Test
    void aKeyRestrictedConsumerReceivesOnlyItsKeysAndFetchesPastTheOthers() throws Exception {
        // Written straight to the broker, two batches: mixed keys, then a forbidden last record.
        produceDirect(SCORES, "live/1", "dead/1", "live/2", "dead/2");
        produceDirect(SCORES, "dead/3");

        JsonNode consumed = alice.consume(SCORES, "lk-app-scores", 2, 5);
        assertThat(each(consumed, "records", "key")).containsExactly("live/1", "live/2");
        assertThat(each(consumed, "records", "value")).containsExactly("value-live/1", "value-live/2");
        assertThat(each(consumed, "records", "offset")).containsExactly("0", "2");
        assertThat(consumed.get("endOfPartition").get(SCORES + "-0").asLong()).as("fetched past the forbidden last records").isEqualTo(5);
        // librdkafka commits the position after the last record it delivered.
        assertThat(consumed.get("committed").get(SCORES + "-0").asLong()).isEqualTo(3);
        assertThat(consumed.get("fetchErrors")).isEmpty();
    }

    @Test
    void producingAKeyOutsideTheWriteRulesFailsWithTopicAuthorizationFailedAndIsNotWritten() throws Exception {
        JsonNode allowed = alice.produce(SCORES_WRITE, List.of(Map.entry("live/team-a/1", "mine"), Map.entry("live/team-a/2", "mine too")));
        assertThat(each(allowed, "deliveries", "error")).containsExactly(null, null);
        // A producer of its own: librdkafka (2.16) takes TOPIC_AUTHORIZATION_FAILED on Produce as a permanent error of
        // the topic and then refuses that producer's later records to it locally, permitted keys included.
        JsonNode refused = alice.produce(SCORES_WRITE, List.of(Map.entry("live/team-b/1", "not mine")));
        assertThat(each(refused, "deliveries", "error")).containsExactly("TOPIC_AUTHORIZATION_FAILED");
        assertThat(refused.get("deliveries").get(0).has("local")).as("refused by the proxy, not by librdkafka").isFalse();

        List<ConsumerRecord<String, String>> written = KafkaReads.all(cluster.getKafkaClientConfiguration(), SCORES_WRITE,
                new StringDeserializer(), new StringDeserializer());
        assertThat(written).extracting(ConsumerRecord::key).containsExactly("live/team-a/1", "live/team-a/2");
    }

    @Test
    void metadataListsOnlyPermittedTopicsAndNeverCreatesOne() throws Exception {
        JsonNode metadata = alice.metadata(SECRET, "lk-ghost");

        assertThat(metadata.get("topics")).extracting(JsonNode::asText).containsExactlyInAnyOrder(ORDERS, SCORES, SCORES_WRITE, STRICT);
        assertThat(metadata.get("asked").get(SECRET).asText()).isEqualTo("TOPIC_AUTHORIZATION_FAILED");
        assertThat(metadata.get("asked").get("lk-ghost").asText()).isEqualTo("TOPIC_AUTHORIZATION_FAILED");
        try (Admin direct = Admin.create(cluster.getKafkaClientConfiguration())) {
            assertThat(direct.listTopics().names().get()).contains(SECRET).doesNotContain("lk-ghost");
        }
    }

    @Test
    void librdkafkaLogsInWithinTheStrictestPreAuthenticationLimits() throws Exception {
        // Frames of 16 KiB at most, 3 s to log in, and no request may wait behind the one that opens the broker
        // connection: a client that pipelined its login (ApiVersions, SaslHandshake, SaslAuthenticate without
        // waiting for answers) would be closed.
        loginAndRoundTrip("""
                network:
                  preAuthentication:
                    maxFrameBytes: 16384
                    timeout: 3s
                    maxQueuedRequests: 1
                """);
    }

    @Test
    void maxQueuedRequestsZeroStillLetsAClientThatNeverQueuesLogIn() throws Exception {
        loginAndRoundTrip("""
                network:
                  preAuthentication:
                    maxQueuedRequests: 0
                """);
    }

    private static void loginAndRoundTrip(String network) throws Exception {
        try (JwtProxy strict = JwtProxy.start(cluster, "", List.of("jwt"), network)) {
            Librdkafka client = Librdkafka.of(strict.proxy.bootstrapServers()).token(JwtProxy.token("alice", Duration.ofMinutes(10), ALICE))
                    .with("message.timeout.ms", 15_000);
            JsonNode produced = client.produce(STRICT, List.of(Map.entry("strict", "logged in")));
            assertThat(each(produced, "deliveries", "error")).hasSize(1).containsOnlyNulls();
            long offset = produced.get("deliveries").get(0).get("offset").asLong();
            JsonNode consumed = client.consume(STRICT, "lk-app-strict", 1, offset + 1);
            assertThat(each(consumed, "records", "value")).endsWith("logged in");
            assertThat(consumed.get("clientErrors")).isEmpty();
            assertThat(preAuthenticationRejections(strict)).as("connections refused by a pre-authentication limit").isZero();
        }
    }

    private static double preAuthenticationRejections(JwtProxy proxy) {
        return proxy.metric("sluice_client_connections_rejected_total", "reason=\"pre_auth");
    }

    private static void produceDirect(String topic, String... keys) throws Exception {
        Map<String, Object> config = new java.util.HashMap<>(cluster.getKafkaClientConfiguration());
        config.put(ProducerConfig.LINGER_MS_CONFIG, 1000);
        config.put(ProducerConfig.COMPRESSION_TYPE_CONFIG, "zstd");
        try (KafkaProducer<String, String> producer = new KafkaProducer<>(config, new StringSerializer(), new StringSerializer())) {
            List<java.util.concurrent.Future<?>> sent = new ArrayList<>();
            for (String key : keys) {
                sent.add(producer.send(new ProducerRecord<>(topic, key, "value-" + key)));
            }
            producer.flush();
            for (var future : sent) {
                future.get();
            }
        }
    }
}
