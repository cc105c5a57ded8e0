package io.sluice.filter.audit;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;

import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.PolicyViolationException;
import org.apache.kafka.common.errors.SaslAuthenticationException;
import org.apache.kafka.common.errors.TopicAuthorizationException;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

import com.fasterxml.jackson.databind.JsonNode;

import io.kroxylicious.testing.kafka.api.KafkaCluster;
import io.kroxylicious.testing.kafka.junit5ext.KafkaClusterExtension;
import io.sluice.auth.testing.TestIssuer;
import io.sluice.filter.jwt.JwtProxy;
import io.sluice.testkit.Topics;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

/**
 * The audit trail of a scripted session through a real proxy (Audit, JwtAuth, Quotas, Policies) in front of a real
 * broker, driven by kafka-clients: a login that fails, a tenant's read that is
 * denied, an admin's topic refused by policy and one created, a tenant's throttled produce. Both sinks, the rolling
 * file and the Kafka topic, hold exactly the expected events in the expected order, byte for byte the same lines, and
 * neither holds a token or a byte of the records produced.
 *
 * <p>Each step uses a client of its own and ends when every connection it opened is closed in the trail, so steps do
 * not interleave. A client opens connections of its own choosing (bootstrap, then the node's): the connections of a
 * step that did nothing but authenticate are checked to be exactly that, and the one that carried the step's request
 * exactly what the step did.</p>
 *
 * <p>The policy refusal and the throttle come from the real Policies and Quotas filters, after JwtAuth as
 * docs/governance.md orders them: a rule holding ops to 3 partitions, and a produce quota for alice (100 B/s) below one
 * record batch's bytes, so that each of her three produces is throttled, by a time that depends on when each was sent
 * (the trail is checked to hold a positive one).</p>
 */
@ExtendWith(KafkaClusterExtension.class)
class AuditTrailEndToEndTest {

    private static final String ORDERS = "audit-e2e-orders";
    private static final String PAYROLL = "audit-e2e-payroll";
    private static final String AUDIT_TOPIC = "audit-e2e-trail";
    private static final String REFUSAL = "policy topics.partitions (rule operators): topic 'audit-e2e-huge' would have 12 partitions, more than the 3 allowed";

    @Test
    void aScriptedSessionLeavesTheExactTrailInTheFileAndTheTopicAndNoSecret(KafkaCluster cluster, @TempDir Path dir) throws Exception {
        Topics.createTopics(cluster.getKafkaClientConfiguration(), List.of(new NewTopic(ORDERS, 1, (short) 1), new NewTopic(PAYROLL, 1, (short) 1),
                new NewTopic(AUDIT_TOPIC, 1, (short) 1)));
        Path file = dir.resolve("audit.jsonl");
        String aliceToken = JwtProxy.token("alice", Duration.ofMinutes(10), Map.of("topics", Map.of(ORDERS, List.of("read", "write"), PAYROLL, List.of("describe"))));
        String opsToken = JwtProxy.token("ops", Duration.ofMinutes(10), Map.of("admin", true));
        String impostorToken = TestIssuer.impostor().token("alice", Duration.ofMinutes(10), Map.of("admin", true));
        String payload = "payload-" + UUID.randomUUID();
        String key = "key-" + UUID.randomUUID();

        JwtProxy proxy = JwtProxy.start(cluster, """
                - name: audit
                  type: Audit
                  config:
                    sampleInterval: 1h
                    file: {path: "%s"}
                    kafka: {topic: %s, bootstrapServers: "%s"}
                - name: quotas
                  type: Quotas
                  config:
                    overrides:
                      alice: {produceBytesPerSecond: 100}
                - name: policies
                  type: Policies
                  config:
                    rules:
                      - name: operators
                        principals: [ops]
                        topics:
                          partitions: {max: 3}
                """.formatted(file, AUDIT_TOPIC, cluster.getBootstrapServers()), List.of("audit", "jwt", "quotas", "policies"));
        Trail trail = new Trail(file);
        List<List<JsonNode>> steps = new ArrayList<>();
        try {
            // 1. A login that fails: a token the proxy's keys did not sign.
            try (Admin admin = Admin.create(proxy.clientConfig(impostorToken))) {
                assertThatThrownBy(() -> admin.listTopics().names().get()).hasRootCauseInstanceOf(SaslAuthenticationException.class);
            }
            steps.add(trail.step());

            // 2. The tenant logs in and reads a topic it may only describe.
            Map<String, Object> consumerConfig = new HashMap<>(proxy.clientConfig(aliceToken));
            consumerConfig.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
            try (KafkaConsumer<String, String> consumer = new KafkaConsumer<>(consumerConfig, new StringDeserializer(), new StringDeserializer())) {
                consumer.assign(List.of(new TopicPartition(PAYROLL, 0)));
                assertThatThrownBy(() -> {
                    for (int i = 0; i < 50; i++) {
                        consumer.poll(Duration.ofMillis(200));
                    }
                }).isInstanceOf(TopicAuthorizationException.class);
            }
            steps.add(trail.step());

            // 3. An operator's topic refused by policy, then one allowed.
            try (Admin admin = Admin.create(proxy.clientConfig(opsToken))) {
                assertThatThrownBy(() -> admin.createTopics(List.of(new NewTopic("audit-e2e-huge", 12, (short) 1))).all().get())
                        .hasCauseInstanceOf(PolicyViolationException.class).hasMessageContaining(REFUSAL);
                admin.createTopics(List.of(new NewTopic("audit-e2e-small", 2, (short) 1))).all().get();
            }
            steps.add(trail.step());

            // 4. The tenant produces three records; each answer carries a throttle.
            try (KafkaProducer<String, String> producer = new KafkaProducer<>(proxy.clientConfig(aliceToken), new StringSerializer(), new StringSerializer())) {
                for (int i = 0; i < 3; i++) {
                    producer.send(new ProducerRecord<>(ORDERS, key, payload + "-" + i)).get();
                }
            }
            steps.add(trail.step());
        } finally {
            proxy.close();
        }
        // The file: every step's trail, then what shutdown wrote.
        String alice = ",\"principal\":\"alice\"";
        String ops = ",\"principal\":\"ops\"";
        String none = ",\"principal\":null";
        String authenticated = ",\"mechanism\":\"OAUTHBEARER\",\"reauthentication\":false";
        assertStep(steps.get(0), null, List.of(
                "connection.opened" + none,
                "authentication.failed" + none + ",\"mechanism\":\"OAUTHBEARER\",\"error\":\"SASL_AUTHENTICATION_FAILED\","
                        + "\"reason\":\"Authentication failed: the token's signature does not verify\"",
                "connection.closed" + none));
        assertStep(steps.get(1), "alice", List.of(
                "connection.opened" + none,
                "authentication.succeeded" + alice + authenticated,
                "authorization.denied" + alice + ",\"api\":\"Fetch\",\"resources\":[{\"type\":\"topic\",\"name\":\"" + PAYROLL
                        + "\",\"error\":\"TOPIC_AUTHORIZATION_FAILED\"}]",
                "connection.closed" + alice));
        String refusal = "\"error\":\"POLICY_VIOLATION\",\"message\":\"" + REFUSAL + "\"";
        assertStep(steps.get(2), "ops", List.of(
                "connection.opened" + none,
                "authentication.succeeded" + ops + authenticated,
                "admin" + ops + ",\"api\":\"CreateTopics\",\"outcome\":\"failed\",\"resources\":[{\"type\":\"topic\",\"name\":\"audit-e2e-huge\","
                        + "\"details\":{\"partitions\":12,\"replicationFactor\":1}," + refusal + "}],\"throttleTimeMs\":0",
                "policy.refused" + ops + ",\"api\":\"CreateTopics\",\"policy\":\"topics.partitions\",\"resources\":[{\"type\":\"topic\","
                        + "\"name\":\"audit-e2e-huge\"," + refusal + "}]",
                "admin" + ops + ",\"api\":\"CreateTopics\",\"outcome\":\"succeeded\",\"resources\":[{\"type\":\"topic\",\"name\":\"audit-e2e-small\","
                        + "\"details\":{\"partitions\":2,\"replicationFactor\":1},\"error\":\"NONE\"}],\"throttleTimeMs\":0",
                "connection.closed" + ops));
        assertStep(steps.get(3), "alice", List.of(
                "connection.opened" + none,
                "authentication.succeeded" + alice + authenticated,
                // The first of three throttled answers; the other two are counted.
                "quota.throttled" + alice + ",\"api\":\"Produce\",\"throttleTimeMs\":\"positive\"",
                "connection.closed" + alice));
        List<JsonNode> all = trail.events();
        int stepped = steps.stream().mapToInt(List::size).sum();
        assertThat(all.subList(0, stepped)).as("nothing but the steps' events before shutdown").isEqualTo(steps.stream().flatMap(List::stream).toList());
        assertThat(all.subList(stepped, all.size())).extracting(AuditTrailEndToEndTest::canonical).containsExactly(
                "events.suppressed,\"sessionId\":null,\"clientAddress\":null" + alice + ",\"suppressedType\":\"quota.throttled\",\"count\":2");

        // The topic: the same lines, byte for byte, in the same order (one partition), keyed by session.
        List<String> lines = Files.readAllLines(file, StandardCharsets.UTF_8);
        List<ConsumerRecord<byte[], byte[]>> records = consumeAll(cluster, lines.size());
        assertThat(records).extracting(r -> new String(r.value(), StandardCharsets.UTF_8)).containsExactlyElementsOf(lines);
        for (ConsumerRecord<byte[], byte[]> r : records) {
            JsonNode event = AuditHarness.JSON.readTree(r.value());
            String expectedKey = event.get("sessionId").isNull() ? event.get("principal").asText() : event.get("sessionId").asText();
            assertThat(new String(r.key(), StandardCharsets.UTF_8)).isEqualTo(expectedKey);
        }

        // No token, no part of one, no record byte, in either sink.
        StringBuilder sinks = new StringBuilder(Files.readString(file, StandardCharsets.UTF_8));
        records.forEach(r -> sinks.append(new String(r.key(), StandardCharsets.UTF_8)).append(new String(r.value(), StandardCharsets.UTF_8)));
        for (String token : List.of(aliceToken, opsToken, impostorToken)) {
            for (String part : token.split("\\.")) {
                assertThat(sinks.toString()).doesNotContain(part);
            }
        }
        assertThat(sinks.toString()).doesNotContain(payload).doesNotContain(key).doesNotContain("payload-").doesNotContain("key-");
    }

    /**
     * One step's events: every connection authenticated as {@code principal} (or, for a failed login, failing)
     * whose events are exactly {@code expected} or, for the connections a client opens for metadata, exactly
     * opened-authenticated-closed; exactly one connection carries {@code expected}. Within a connection the session id
     * and client address never change, its times never go back, and its byte counts are positive.
     */
    private static void assertStep(List<JsonNode> step, String principal, List<String> expected) {
        Map<String, List<JsonNode>> sessions = new LinkedHashMap<>();
        step.forEach(e -> sessions.computeIfAbsent(e.get("sessionId").asText(), id -> new ArrayList<>()).add(e));
        String none = ",\"principal\":null";
        String p = principal == null ? none : ",\"principal\":\"" + principal + "\"";
        List<String> metadataOnly = List.of("connection.opened" + none,
                "authentication.succeeded" + p + ",\"mechanism\":\"OAUTHBEARER\",\"reauthentication\":false", "connection.closed" + p);
        int carrying = 0;
        for (List<JsonNode> session : sessions.values()) {
            assertThat(session).extracting(e -> e.get("clientAddress").asText()).allMatch(a -> a.startsWith("127.0.0.1:")).containsOnly(session.get(0).get("clientAddress").asText());
            assertThat(session).extracting(e -> e.get("time").asText()).isSorted();
            JsonNode closed = session.get(session.size() - 1);
            assertThat(closed.get("bytesFromClient").asLong()).isPositive();
            assertThat(closed.get("bytesToClient").asLong()).isPositive();
            assertThat(closed.get("durationMs").asLong()).isNotNegative();
            List<String> seen = session.stream().map(AuditTrailEndToEndTest::canonical).toList();
            if (seen.equals(expected)) {
                carrying++;
            } else {
                assertThat(seen).as("a connection that only authenticated").isEqualTo(metadataOnly);
            }
        }
        assertThat(carrying).as("connections carrying the step, in " + step).isEqualTo(1);
    }

    /** An event as JSON without what varies from run to run (time, ids, addresses, byte counts, lifetimes, suppression times). */
    private static String canonical(JsonNode event) {
        com.fasterxml.jackson.databind.node.ObjectNode copy = event.deepCopy();
        assertThat(copy.get("version").asInt()).isEqualTo(1);
        copy.remove(List.of("version", "time", "virtualCluster", "bytesFromClient", "bytesToClient", "durationMs", "sessionLifetimeMs",
                "firstSuppressed", "lastSuppressed"));
        if (!copy.get("sessionId").isNull()) {
            copy.remove(List.of("sessionId", "clientAddress"));
        }
        String type = copy.remove("type").asText();
        if (type.equals("quota.throttled")) {
            // The quota's throttle depends on when the produce came; the trail must carry one.
            assertThat(copy.get("throttleTimeMs").asInt()).as("the throttle in %s", event).isPositive();
            copy.put("throttleTimeMs", "positive");
        }
        String json = copy.toString();
        return type + "," + json.substring(1, json.length() - 1);
    }

    private static List<ConsumerRecord<byte[], byte[]>> consumeAll(KafkaCluster cluster, int count) {
        Map<String, Object> config = new HashMap<>(cluster.getKafkaClientConfiguration());
        config.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
        List<ConsumerRecord<byte[], byte[]>> records = new ArrayList<>();
        try (KafkaConsumer<byte[], byte[]> consumer = new KafkaConsumer<>(config, new ByteArrayDeserializer(), new ByteArrayDeserializer())) {
            consumer.assign(List.of(new TopicPartition(AUDIT_TOPIC, 0)));
            await().atMost(Duration.ofSeconds(30)).until(() -> {
                consumer.poll(Duration.ofMillis(200)).forEach(records::add);
                return records.size() >= count;
            });
            // Nothing beyond: the end offset is the count.
            assertThat(consumer.endOffsets(List.of(new TopicPartition(AUDIT_TOPIC, 0))).values()).containsExactly((long) count);
        }
        return records;
    }

    /** The file sink's events, read as the test goes. */
    private static final class Trail {
        private final Path file;
        private int taken;

        Trail(Path file) {
            this.file = file;
        }

        /** Every complete line so far, parsed. */
        List<JsonNode> events() throws Exception {
            if (!Files.exists(file)) {
                return List.of();
            }
            String text = Files.readString(file, StandardCharsets.UTF_8);
            List<JsonNode> events = new ArrayList<>();
            int start = 0;
            for (int end = text.indexOf('\n'); end >= 0; end = text.indexOf('\n', start)) {
                events.add(AuditHarness.JSON.readTree(text.substring(start, end)));
                start = end + 1;
            }
            return events;
        }

        /** The events of the step just done, once every connection it opened is closed in the trail. */
        List<JsonNode> step() {
            List<JsonNode>[] step = new List[1];
            await().atMost(Duration.ofSeconds(30)).until(() -> {
                List<JsonNode> events = events();
                List<JsonNode> mine = events.subList(taken, events.size());
                long opened = mine.stream().filter(e -> e.get("type").asText().equals("connection.opened")).count();
                long closed = mine.stream().filter(e -> e.get("type").asText().equals("connection.closed")).count();
                step[0] = List.copyOf(mine);
                return opened > 0 && opened == closed;
            });
            taken += step[0].size();
            return step[0];
        }
    }
}
