package io.sluice.filter.jwt;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;

import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.GroupAuthorizationException;
import org.apache.kafka.common.errors.TimeoutException;
import org.apache.kafka.common.errors.TopicAuthorizationException;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import io.kroxylicious.testing.kafka.api.KafkaCluster;
import io.kroxylicious.testing.kafka.common.BrokerConfig;
import io.kroxylicious.testing.kafka.junit5ext.KafkaClusterExtension;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** What an authenticated principal may see and do, per its token's permissions, against a real broker. */
@ExtendWith(KafkaClusterExtension.class)
class JwtAuthorizationTest {

    @BrokerConfig(name = "auto.create.topics.enable", value = "true")
    static KafkaCluster cluster;
    static JwtProxy jwt;

    private static final String ORDERS = "az-orders";
    private static final String AUDIT = "az-audit";
    private static final String SCORES = "az-scores";
    private static final String SCORES_WRITE = "az-scores-w";
    private static final String SECRET = "az-secret";

    private static final Map<String, Object> ALICE = Map.of(
            "topics", Map.of(ORDERS, List.of("read", "write"), AUDIT, List.of("describe"), "az-new-*", List.of("read", "write")),
            "keys", Map.of("az-scores*", Map.of("read", List.of("live/*"), "write", List.of("live/team-a/*"))),
            "groups", List.of("az-app-*"));

    @BeforeAll
    static void start() throws Exception {
        jwt = JwtProxy.start(cluster);
        jwt.createTopics(ORDERS, AUDIT, SCORES, SCORES_WRITE, SECRET);
    }

    @AfterAll
    static void stop() {
        jwt.close();
    }

    @Test
    void metadataListsOnlyPermittedTopics() throws Exception {
        try (Admin admin = Admin.create(alice())) {
            assertThat(admin.listTopics().names().get()).containsExactlyInAnyOrder(ORDERS, AUDIT, SCORES, SCORES_WRITE);
            assertThatThrownBy(() -> admin.describeTopics(List.of(SECRET)).allTopicNames().get())
                    .hasCauseInstanceOf(TopicAuthorizationException.class);
        }
        try (Admin direct = Admin.create(cluster.getKafkaClientConfiguration())) {
            assertThat(direct.listTopics().names().get()).contains(SECRET);
        }
    }

    @Test
    void forbiddenTopicFailsWithTopicAuthorizationWhilePermittedTopicsInTheSameRequestSucceed() throws Exception {
        Map<String, Object> config = new HashMap<>(alice());
        // Both records wait for one Produce request that carries both topics.
        config.put(ProducerConfig.LINGER_MS_CONFIG, 500);
        try (KafkaProducer<String, String> producer = new KafkaProducer<>(config, new StringSerializer(), new StringSerializer())) {
            producer.partitionsFor(ORDERS);
            Future<RecordMetadata> allowed = producer.send(new ProducerRecord<>(ORDERS, "k", "fine"));
            // Described but not writable: the Produce request itself is where it is refused.
            Future<RecordMetadata> forbidden = producer.send(new ProducerRecord<>(AUDIT, "k", "not yours"));

            assertThat(allowed.get().offset()).isGreaterThanOrEqualTo(0);
            assertThatThrownBy(forbidden::get).isInstanceOf(ExecutionException.class).hasCauseInstanceOf(TopicAuthorizationException.class);
        }
        assertThat(endOffset(AUDIT)).isZero();

        Map<String, Object> consumerConfig = new HashMap<>(alice());
        consumerConfig.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
        try (KafkaConsumer<String, String> consumer = new KafkaConsumer<>(consumerConfig, new StringDeserializer(), new StringDeserializer())) {
            consumer.assign(List.of(new TopicPartition(SECRET, 0)));
            assertThatThrownBy(() -> {
                for (int i = 0; i < 20; i++) {
                    consumer.poll(Duration.ofMillis(500));
                }
            }).isInstanceOf(TopicAuthorizationException.class);
        }
    }

    /**
     * A token with a row filter for a topic (the WebSocket bridge applies it, docs/bridge-filters.md) reads none of the
     * topic through the proxy, which cannot filter rows inside a Fetch: its read grant is withheld there, while writes
     * and metadata stay as the claim says.
     */
    @Test
    void aRowFilteredTopicCannotBeReadThroughTheProxy() throws Exception {
        produceDirect(ORDERS, "row-a", "row-b");
        Map<String, Object> claim = Map.of("topics", Map.of(ORDERS, List.of("read", "write")),
                "filters", Map.of(ORDERS, Map.of("eq", List.of("/value/branch", 17))));
        Map<String, Object> consumerConfig = new HashMap<>(jwt.clientConfig(JwtProxy.token("branch-17", Duration.ofMinutes(5), claim)));
        consumerConfig.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
        try (KafkaConsumer<String, String> consumer = new KafkaConsumer<>(consumerConfig, new StringDeserializer(), new StringDeserializer())) {
            consumer.assign(List.of(new TopicPartition(ORDERS, 0)));
            assertThatThrownBy(() -> {
                for (int i = 0; i < 20; i++) {
                    assertThat(consumer.poll(Duration.ofMillis(500))).as("no record of a row-filtered topic").isEmpty();
                }
            }).isInstanceOf(TopicAuthorizationException.class);
        }
        try (KafkaProducer<String, String> producer = new KafkaProducer<>(new HashMap<>(consumerConfig), new StringSerializer(), new StringSerializer())) {
            assertThat(producer.send(new ProducerRecord<>(ORDERS, "k", "{\"branch\":17}")).get().offset()).isGreaterThanOrEqualTo(0);
        }
    }

    @Test
    void metadataNeverCreatesATopic() throws Exception {
        Map<String, Object> config = new HashMap<>(alice());
        config.put(ProducerConfig.MAX_BLOCK_MS_CONFIG, 3000);
        try (KafkaProducer<String, String> producer = new KafkaProducer<>(config, new StringSerializer(), new StringSerializer())) {
            assertThatThrownBy(() -> producer.send(new ProducerRecord<>("az-new-topic", "k", "v")).get())
                    .hasCauseInstanceOf(TimeoutException.class);
        }
        try (Admin direct = Admin.create(cluster.getKafkaClientConfiguration())) {
            assertThat(direct.listTopics().names().get()).doesNotContain("az-new-topic");
        }
    }

    @Test
    void consumerSeesOnlyPermittedKeysAndCommitsAndResumesPastTheOthers() throws Exception {
        TopicPartition scores = new TopicPartition(SCORES, 0);
        // Straight to the broker, gzip, idempotent: a mixed batch, an all-forbidden batch, a permitted one, a forbidden last one.
        produceDirect(SCORES, "live/1", "dead/1", "live/2", "dead/2");
        produceDirect(SCORES, "dead/3", "dead/4");
        produceDirect(SCORES, "live/3");
        produceDirect(SCORES, "dead/5");
        long end = endOffset(SCORES);
        assertThat(end).isEqualTo(8);

        List<ConsumerRecord<String, String>> first = consumeUntil(scores, end);
        assertThat(first).extracting(ConsumerRecord::key).containsExactly("live/1", "live/2", "live/3");
        assertThat(first).extracting(ConsumerRecord::offset).containsExactly(0L, 2L, 6L);
        assertThat(first).extracting(ConsumerRecord::value).containsExactly("value-live/1", "value-live/2", "value-live/3");
        assertThat(committed("az-app-scores", scores)).isEqualTo(end);

        produceDirect(SCORES, "dead/6", "live/4");
        List<ConsumerRecord<String, String>> resumed = consumeUntil(scores, endOffset(SCORES));
        assertThat(resumed).extracting(ConsumerRecord::key).containsExactly("live/4");
        assertThat(resumed).extracting(ConsumerRecord::offset).containsExactly(9L);
    }

    @Test
    void producingARecordWithAForbiddenKeyFailsForThatPartition() throws Exception {
        try (KafkaProducer<String, String> producer = new KafkaProducer<>(alice(), new StringSerializer(), new StringSerializer())) {
            producer.send(new ProducerRecord<>(SCORES_WRITE, 0, "live/team-a/1", "ok")).get();
            assertThatThrownBy(() -> producer.send(new ProducerRecord<>(SCORES_WRITE, 0, "live/team-b/1", "no")).get())
                    .hasCauseInstanceOf(TopicAuthorizationException.class);
        }
        List<String> keys = new ArrayList<>();
        Map<String, Object> direct = new HashMap<>(cluster.getKafkaClientConfiguration());
        try (KafkaConsumer<String, String> consumer = new KafkaConsumer<>(direct, new StringDeserializer(), new StringDeserializer())) {
            TopicPartition tp = new TopicPartition(SCORES_WRITE, 0);
            consumer.assign(List.of(tp));
            consumer.seekToBeginning(List.of(tp));
            long end = endOffset(SCORES_WRITE);
            while (consumer.position(tp) < end) {
                consumer.poll(Duration.ofMillis(200)).forEach(r -> keys.add(r.key()));
            }
        }
        assertThat(keys).contains("live/team-a/1").doesNotContain("live/team-b/1");
    }

    @Test
    void groupOutsideThePermittedPatternsIsRefused() {
        Map<String, Object> config = new HashMap<>(alice());
        config.put(ConsumerConfig.GROUP_ID_CONFIG, "someone-elses-group");
        try (KafkaConsumer<String, String> consumer = new KafkaConsumer<>(config, new StringDeserializer(), new StringDeserializer())) {
            consumer.subscribe(List.of(ORDERS));
            assertThatThrownBy(() -> {
                for (int i = 0; i < 20; i++) {
                    consumer.poll(Duration.ofMillis(500));
                }
            }).isInstanceOf(GroupAuthorizationException.class);
        }
    }

    @Test
    void creatingTopicsNeedsAdmin() throws Exception {
        try (Admin admin = Admin.create(alice())) {
            assertThatThrownBy(() -> admin.createTopics(List.of(new NewTopic("az-new-by-alice", 1, (short) 1))).all().get())
                    .hasCauseInstanceOf(TopicAuthorizationException.class);
        }
        Map<String, Object> root = jwt.clientConfig(JwtProxy.token("root", Duration.ofMinutes(5), Map.of("admin", true)));
        try (Admin admin = Admin.create(root)) {
            io.sluice.testkit.Topics.createTopics(admin, List.of(new NewTopic("az-new-by-root", 1, (short) 1)));
            // CreateTopics returns once the controller has the topic; the broker's metadata follows a moment later.
            await().atMost(Duration.ofSeconds(30)).untilAsserted(() -> assertThat(admin.listTopics().names().get()).contains("az-new-by-root", SECRET));
            admin.deleteTopics(List.of("az-new-by-root")).all().get();
        }
    }

    // ---- helpers ----

    private static Map<String, Object> alice() {
        return jwt.clientConfig(JwtProxy.token("alice", Duration.ofMinutes(5), ALICE));
    }

    /** Sends the keys as one batch straight to the broker, gzip-compressed by an idempotent producer. */
    private static void produceDirect(String topic, String... keys) throws Exception {
        Map<String, Object> config = new HashMap<>(cluster.getKafkaClientConfiguration());
        config.put(ProducerConfig.LINGER_MS_CONFIG, 1000);
        config.put(ProducerConfig.COMPRESSION_TYPE_CONFIG, "gzip");
        try (KafkaProducer<String, String> producer = new KafkaProducer<>(config, new StringSerializer(), new StringSerializer())) {
            List<Future<RecordMetadata>> sent = new ArrayList<>();
            for (String key : keys) {
                sent.add(producer.send(new ProducerRecord<>(topic, 0, key, "value-" + key)));
            }
            producer.flush();
            for (Future<RecordMetadata> f : sent) {
                f.get();
            }
        }
    }

    /** Consumes through the proxy in group az-app-scores until the position reaches {@code end}, then commits. */
    private static List<ConsumerRecord<String, String>> consumeUntil(TopicPartition tp, long end) {
        Map<String, Object> config = new HashMap<>(alice());
        config.put(ConsumerConfig.GROUP_ID_CONFIG, "az-app-scores");
        config.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
        config.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
        List<ConsumerRecord<String, String>> records = new ArrayList<>();
        try (KafkaConsumer<String, String> consumer = new KafkaConsumer<>(config, new StringDeserializer(), new StringDeserializer())) {
            consumer.subscribe(List.of(tp.topic()));
            long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
            while (System.nanoTime() < deadline && (consumer.assignment().isEmpty() || consumer.position(tp) < end)) {
                consumer.poll(Duration.ofMillis(200)).forEach(records::add);
            }
            assertThat(consumer.position(tp)).as("position after consuming").isEqualTo(end);
            consumer.commitSync();
        }
        return records;
    }

    private static long committed(String group, TopicPartition tp) throws Exception {
        try (Admin direct = Admin.create(cluster.getKafkaClientConfiguration())) {
            OffsetAndMetadata offset = direct.listConsumerGroupOffsets(group).partitionsToOffsetAndMetadata().get().get(tp);
            return offset == null ? -1 : offset.offset();
        }
    }

    private static long endOffset(String topic) throws Exception {
        try (Admin direct = Admin.create(cluster.getKafkaClientConfiguration())) {
            TopicPartition tp = new TopicPartition(topic, 0);
            return direct.listOffsets(Map.of(tp, OffsetSpec.latest())).partitionResult(tp).get().offset();
        }
    }
}
