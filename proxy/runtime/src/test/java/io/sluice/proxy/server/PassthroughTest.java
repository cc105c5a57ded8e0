package io.sluice.proxy.server;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ExecutionException;
import java.util.stream.Collectors;

import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.Node;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.UnknownTopicOrPartitionException;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import io.kroxylicious.testing.kafka.api.KafkaCluster;
import io.kroxylicious.testing.kafka.common.BrokerCluster;
import io.kroxylicious.testing.kafka.junit5ext.KafkaClusterExtension;
import io.sluice.proxy.testing.ProxyFixture;
import io.sluice.testkit.Topics;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

/** Unmodified kafka-clients against a 3-broker KRaft cluster, through the proxy only. */
@ExtendWith(KafkaClusterExtension.class)
class PassthroughTest {

    @BrokerCluster(numBrokers = 3)
    static KafkaCluster cluster;

    static ProxyFixture proxy;

    @BeforeAll
    static void startProxy() {
        proxy = ProxyFixture.start(cluster.getBootstrapServers());
    }

    @AfterAll
    static void stopProxy() {
        if (proxy != null) {
            proxy.close();
        }
    }

    @Test
    void clientsLearnOnlyProxyAddressesForEveryBroker() throws Exception {
        Set<Integer> realPorts = new HashSet<>();
        for (String s : cluster.getBootstrapServers().split(",")) {
            realPorts.add(Integer.parseInt(s.substring(s.lastIndexOf(':') + 1)));
        }
        String topic = Topics.createTopic(proxy.clientConfig(), new NewTopic("t-" + UUID.randomUUID(), 3, (short) 3));
        try (Admin admin = Admin.create(proxy.clientConfig())) {
            Collection<Node> nodes = admin.describeCluster().nodes().get();
            assertThat(nodes).hasSize(3);
            for (Node node : nodes) {
                assertThat(node.host()).isEqualTo("127.0.0.1");
                assertThat(node.port()).isEqualTo(proxy.bootstrapPort() + 1 + node.id()).isNotIn(realPorts);
            }
            TopicDescription description = admin.describeTopics(List.of(topic)).allTopicNames().get().get(topic);
            description.partitions().forEach(p -> {
                assertThat(p.leader().port()).isNotIn(realPorts);
                p.replicas().forEach(r -> assertThat(r.port()).isNotIn(realPorts));
            });
            Node controller = admin.describeCluster().controller().get();
            assertThat(controller.port()).isNotIn(realPorts);
        }
        try (KafkaConsumer<String, String> consumer = consumer("find-coordinator-" + UUID.randomUUID(), Map.of())) {
            consumer.subscribe(List.of(topic));
            long deadline = System.currentTimeMillis() + 30_000;
            while (consumer.assignment().isEmpty() && System.currentTimeMillis() < deadline) {
                consumer.poll(Duration.ofMillis(200));
            }
            // Joining needs the coordinator from FindCoordinator, reachable only at a proxy address.
            assertThat(consumer.assignment()).hasSize(3);
        }
    }

    @Test
    void idempotentProducerWithAcksAllRoundTripsThroughAConsumerGroup() throws Exception {
        String topic = Topics.createTopic(proxy.clientConfig(), new NewTopic("t-" + UUID.randomUUID(), 3, (short) 3));
        int count = 300;
        try (KafkaProducer<String, String> producer = producer(Map.of(ProducerConfig.ACKS_CONFIG, "all", ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, true))) {
            for (int i = 0; i < count; i++) {
                producer.send(new ProducerRecord<>(topic, "k" + i, "v" + i));
            }
            producer.flush();
        }
        List<ConsumerRecord<String, String>> records = consumeAll(topic, count, "group-" + UUID.randomUUID());
        assertThat(records).extracting(ConsumerRecord::value).containsExactlyInAnyOrderElementsOf(
                java.util.stream.IntStream.range(0, count).mapToObj(i -> "v" + i).toList());
    }

    @Test
    void acksZeroProducerIsForwardedWithoutWaitingForResponses() throws Exception {
        String topic = Topics.createTopic(proxy.clientConfig(), new NewTopic("t-" + UUID.randomUUID(), 1, (short) 1));
        try (KafkaProducer<String, String> producer = producer(Map.of(ProducerConfig.ACKS_CONFIG, "0", ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, false))) {
            for (int i = 0; i < 50; i++) {
                producer.send(new ProducerRecord<>(topic, "k", "fire-and-forget-" + i)).get();
            }
            producer.flush();
        }
        assertThat(consumeAll(topic, 50, null)).hasSize(50);
    }

    @Test
    void transactionsCommitAndAbortAreHonouredForReadCommittedConsumers() throws Exception {
        String topic = Topics.createTopic(proxy.clientConfig(), new NewTopic("t-" + UUID.randomUUID(), 2, (short) 3));
        try (KafkaProducer<String, String> producer = producer(Map.of(ProducerConfig.TRANSACTIONAL_ID_CONFIG, "tx-" + UUID.randomUUID()))) {
            producer.initTransactions();
            producer.beginTransaction();
            producer.send(new ProducerRecord<>(topic, "k1", "committed-1"));
            producer.send(new ProducerRecord<>(topic, "k2", "committed-2"));
            producer.commitTransaction();
            producer.beginTransaction();
            producer.send(new ProducerRecord<>(topic, "k3", "aborted"));
            producer.flush();
            producer.abortTransaction();
            producer.beginTransaction();
            producer.send(new ProducerRecord<>(topic, "k4", "committed-3"));
            producer.commitTransaction();
        }
        List<ConsumerRecord<String, String>> records = consumeAll(topic, 3, "tx-reader-" + UUID.randomUUID(),
                Map.of(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed"));
        assertThat(records).extracting(ConsumerRecord::value).containsExactlyInAnyOrder("committed-1", "committed-2", "committed-3");
    }

    @Test
    void consumerGroupRebalancesWhenASecondMemberJoins() throws Exception {
        String topic = Topics.createTopic(proxy.clientConfig(), new NewTopic("t-" + UUID.randomUUID(), 4, (short) 3));
        String group = "rebalance-" + UUID.randomUUID();
        try (KafkaConsumer<String, String> first = consumer(group, Map.of());
             KafkaConsumer<String, String> second = consumer(group, Map.of())) {
            first.subscribe(List.of(topic));
            long deadline = System.currentTimeMillis() + 30_000;
            while (first.assignment().size() != 4 && System.currentTimeMillis() < deadline) {
                first.poll(Duration.ofMillis(200));
            }
            assertThat(first.assignment()).hasSize(4);
            second.subscribe(List.of(topic));
            while ((first.assignment().size() + second.assignment().size() != 4 || second.assignment().isEmpty())
                    && System.currentTimeMillis() < deadline) {
                first.poll(Duration.ofMillis(100));
                second.poll(Duration.ofMillis(100));
            }
            assertThat(second.assignment()).isNotEmpty();
            assertThat(first.assignment()).doesNotContainAnyElementsOf(second.assignment());
            Set<TopicPartition> all = new HashSet<>(first.assignment());
            all.addAll(second.assignment());
            assertThat(all).hasSize(4);
        }
    }

    @ParameterizedTest
    @ValueSource(strings = { "gzip", "snappy", "lz4", "zstd" })
    void compressedBatchesRoundTrip(String codec) throws Exception {
        String topic = Topics.createTopic(proxy.clientConfig(), new NewTopic("t-" + UUID.randomUUID(), 1, (short) 3));
        try (KafkaProducer<String, String> producer = producer(Map.of(ProducerConfig.COMPRESSION_TYPE_CONFIG, codec, ProducerConfig.LINGER_MS_CONFIG, 20))) {
            for (int i = 0; i < 100; i++) {
                producer.send(new ProducerRecord<>(topic, "key-" + i, codec + "-value-" + i + "-" + "x".repeat(200)));
            }
            producer.flush();
        }
        List<ConsumerRecord<String, String>> records = consumeAll(topic, 100, null);
        assertThat(records).extracting(ConsumerRecord::value).allMatch(v -> v.startsWith(codec + "-value-"));
        assertThat(records).hasSize(100);
    }

    @Test
    void recordsNearTheMaximumSizePassIntact() throws Exception {
        String topic = Topics.createTopic(proxy.clientConfig(), new NewTopic("t-" + UUID.randomUUID(), 1, (short) 3));
        byte[] big = new byte[1_000_000];
        new java.util.Random(42).nextBytes(big);
        Map<String, Object> config = new HashMap<>(proxy.clientConfig());
        config.put(ProducerConfig.MAX_REQUEST_SIZE_CONFIG, 1_048_000);
        try (KafkaProducer<byte[], byte[]> producer = new KafkaProducer<>(config, new ByteArraySerializer(), new ByteArraySerializer())) {
            producer.send(new ProducerRecord<>(topic, big)).get();
        }
        Map<String, Object> consumerConfig = new HashMap<>(proxy.clientConfig());
        consumerConfig.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
        try (KafkaConsumer<byte[], byte[]> consumer = new KafkaConsumer<>(consumerConfig, new ByteArrayDeserializer(), new ByteArrayDeserializer())) {
            consumer.assign(List.of(new TopicPartition(topic, 0)));
            List<byte[]> values = new ArrayList<>();
            long deadline = System.currentTimeMillis() + 30_000;
            while (values.isEmpty() && System.currentTimeMillis() < deadline) {
                consumer.poll(Duration.ofMillis(500)).forEach(r -> values.add(r.value()));
            }
            assertThat(values).hasSize(1);
            assertThat(values.get(0)).isEqualTo(big);
        }
    }

    @Test
    void adminCreatesAndDeletesTopicsThroughTheProxy() throws Exception {
        String topic = "admin-" + UUID.randomUUID();
        try (Admin admin = Admin.create(proxy.clientConfig())) {
            // Returns once every broker knows the topic, so whichever broker answers the listing has it.
            io.sluice.testkit.Topics.createTopics(admin, List.of(new NewTopic(topic, 2, (short) 3)));
            assertThat(admin.listTopics().names().get()).contains(topic);
            admin.deleteTopics(List.of(topic)).all().get();
            // DeleteTopics returns once the controller has committed it; each broker applies it a moment later, and a
            // listing or describe answered by a broker that has not yet still shows the topic. So the deletion is
            // asserted as one condition, met once, with nothing asked of the brokers after it.
            await().atMost(Duration.ofSeconds(30)).untilAsserted(() -> {
                assertThat(admin.listTopics().names().get()).doesNotContain(topic);
                assertThatThrownBy(() -> admin.describeTopics(List.of(topic)).allTopicNames().get())
                        .isInstanceOf(ExecutionException.class).hasCauseInstanceOf(UnknownTopicOrPartitionException.class);
            });
        }
    }

    @Test
    void metricsCountRequestsAndBytesPerVirtualCluster() throws Exception {
        String topic = Topics.createTopic(proxy.clientConfig(), new NewTopic("t-" + UUID.randomUUID(), 1, (short) 1));
        try (KafkaProducer<String, String> producer = producer(Map.of())) {
            producer.send(new ProducerRecord<>(topic, "k", "v")).get();
        }
        assertThat(proxy.metric("sluice_requests_total", "api_key=\"PRODUCE\"")).isGreaterThan(0);
        assertThat(proxy.metric("sluice_bytes_total", "direction=\"from_client\"")).isGreaterThan(0);
        assertThat(proxy.metric("sluice_bytes_total", "direction=\"to_broker\"")).isGreaterThan(0);
        assertThat(proxy.metric("sluice_request_latency_seconds_count", "api_key=\"PRODUCE\"")).isGreaterThan(0);
        // Metadata goes to the bootstrap port, Produce to the leader's port: each series names its broker.
        int leader;
        try (Admin admin = Admin.create(proxy.clientConfig())) {
            leader = admin.describeTopics(List.of(topic)).allTopicNames().get().get(topic).partitions().get(0).leader().id();
        }
        assertThat(proxy.metric("sluice_requests_total", "api_key=\"METADATA\",node_id=\"bootstrap\"")).isGreaterThan(0);
        assertThat(proxy.metric("sluice_requests_total", "api_key=\"PRODUCE\",node_id=\"" + leader + "\"")).isGreaterThan(0);
        assertThat(proxy.metric("sluice_bytes_total", "direction=\"to_broker\",node_id=\"" + leader + "\"")).isGreaterThan(0);
    }

    // ---- helpers ----

    static KafkaProducer<String, String> producer(Map<String, Object> extra) {
        Map<String, Object> config = new HashMap<>(proxy.clientConfig());
        config.putAll(extra);
        return new KafkaProducer<>(config, new StringSerializer(), new StringSerializer());
    }

    static KafkaConsumer<String, String> consumer(String group, Map<String, Object> extra) {
        Map<String, Object> config = new HashMap<>(proxy.clientConfig());
        config.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
        if (group != null) {
            config.put(ConsumerConfig.GROUP_ID_CONFIG, group);
        }
        config.putAll(extra);
        return new KafkaConsumer<>(config, new StringDeserializer(), new StringDeserializer());
    }

    static List<ConsumerRecord<String, String>> consumeAll(String topic, int expected, String group) throws Exception {
        return consumeAll(topic, expected, group, Map.of());
    }

    static List<ConsumerRecord<String, String>> consumeAll(String topic, int expected, String group, Map<String, Object> extra) {
        List<ConsumerRecord<String, String>> records = new ArrayList<>();
        try (KafkaConsumer<String, String> consumer = consumer(group, extra)) {
            if (group != null) {
                consumer.subscribe(List.of(topic));
            } else {
                consumer.assign(consumer.partitionsFor(topic).stream().map(p -> new TopicPartition(topic, p.partition())).collect(Collectors.toList()));
            }
            long deadline = System.currentTimeMillis() + 60_000;
            while (records.size() < expected && System.currentTimeMillis() < deadline) {
                consumer.poll(Duration.ofMillis(200)).forEach(records::add);
            }
            if (group != null) {
                consumer.commitSync();
            }
        }
        return records;
    }
}
