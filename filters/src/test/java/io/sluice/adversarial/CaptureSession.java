package io.sluice.adversarial;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AlterConfigOp;
import org.apache.kafka.clients.admin.ConfigEntry;
import org.apache.kafka.clients.admin.FeatureUpdate;
import org.apache.kafka.clients.admin.NewPartitions;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.admin.RecordsToDelete;
import org.apache.kafka.clients.admin.UpdateFeaturesOptions;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.KafkaShareConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.config.ConfigResource;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What a real application does through the proxy, so the relay can record it: producers (plain, compressed,
 * idempotent, transactional), consumers (classic group, KIP-848 group, assigned partitions with read_committed) and
 * the Admin calls operators use. Individual calls may be refused (the point is the requests, not their answers), so
 * each step's failure is logged and the session goes on.
 */
final class CaptureSession {

    private static final Logger LOG = LoggerFactory.getLogger(CaptureSession.class);

    private final FuzzTarget target;
    private final String token;
    private FuzzTarget.Cluster through;

    CaptureSession(FuzzTarget target, String token) {
        this.target = target;
        this.token = token;
    }

    /**
     * The whole session through each virtual cluster, then the transactions again with the broker's
     * {@code transaction.version} at 1: clients then send AddPartitionsToTxn and AddOffsetsToTxn, which version 2
     * (KIP-890) leaves out.
     */
    void run() throws Exception {
        for (FuzzTarget.Cluster cluster : target.clusters()) {
            through = cluster;
            runOnce();
        }
        try (Admin admin = target.brokerAdmin()) {
            admin.updateFeatures(Map.of("transaction.version", new FeatureUpdate((short) 1, FeatureUpdate.UpgradeType.SAFE_DOWNGRADE)),
                    new UpdateFeaturesOptions()).all().get(10, TimeUnit.SECONDS);
        }
        for (FuzzTarget.Cluster cluster : target.clusters()) {
            through = cluster;
            step("transactions, transaction.version 1", this::transactions);
        }
    }

    private void runOnce() {
        step("admin", this::admin);
        step("producer", () -> produce(Map.of()));
        step("compressed producer", () -> produce(Map.of(ProducerConfig.COMPRESSION_TYPE_CONFIG, "lz4")));
        step("gzip producer", () -> produce(Map.of(ProducerConfig.COMPRESSION_TYPE_CONFIG, "gzip")));
        step("transactional producer", this::transactions);
        step("classic consumer group", () -> consume("fz-classic", Map.of(ConsumerConfig.GROUP_PROTOCOL_CONFIG, "classic")));
        step("KIP-848 consumer group", () -> consume("fz-848", Map.of(ConsumerConfig.GROUP_PROTOCOL_CONFIG, "consumer")));
        step("assigned read_committed consumer", this::assigned);
        step("share consumer", this::share);
        step("admin after traffic", this::adminAfterTraffic);
    }

    private Map<String, Object> clientConfig() {
        Map<String, Object> config = new HashMap<>(target.clientConfig(through, token));
        config.put(ProducerConfig.MAX_BLOCK_MS_CONFIG, 10_000);
        return config;
    }

    /** The topic over whose keys virtual topics are routed: the virtual name where KeyRouting is, the real one elsewhere. */
    private String routedTopic() {
        return through.name().equals("routed") ? FuzzTarget.VIRTUAL : FuzzTarget.ROUTED;
    }

    private void share() {
        Map<String, Object> config = clientConfig();
        config.put(ConsumerConfig.GROUP_ID_CONFIG, "fz-share");
        try (KafkaShareConsumer<String, String> consumer = new KafkaShareConsumer<>(config, new StringDeserializer(), new StringDeserializer())) {
            consumer.subscribe(List.of(FuzzTarget.PLAIN));
            long deadline = System.currentTimeMillis() + 5_000;
            while (System.currentTimeMillis() < deadline) {
                consumer.poll(Duration.ofMillis(200));
            }
        }
    }

    private void step(String name, Step step) {
        try {
            step.run();
        } catch (Exception e) {
            LOG.info("capture step '{}' ended with {}", name, e.toString());
        }
    }

    private interface Step {
        void run() throws Exception;
    }

    private void admin() throws Exception {
        try (Admin admin = Admin.create(clientConfig())) {
            admin.describeCluster().nodes().get(10, TimeUnit.SECONDS);
            admin.listTopics().names().get(10, TimeUnit.SECONDS);
            admin.describeTopics(List.of(FuzzTarget.PLAIN, FuzzTarget.SECURE, routedTopic())).allTopicNames().get(10, TimeUnit.SECONDS);
            admin.describeConfigs(List.of(new ConfigResource(ConfigResource.Type.TOPIC, FuzzTarget.PLAIN),
                    new ConfigResource(ConfigResource.Type.BROKER, "0"))).all().get(10, TimeUnit.SECONDS);
            String created = "fz-created-" + through.name();
            io.sluice.testkit.Topics.createTopics(admin, List.of(new NewTopic(created, 1, (short) 1)));
            admin.createPartitions(Map.of(created, NewPartitions.increaseTo(2))).all().get(10, TimeUnit.SECONDS);
            admin.incrementalAlterConfigs(Map.of(new ConfigResource(ConfigResource.Type.TOPIC, created),
                    List.of(new AlterConfigOp(new ConfigEntry("retention.ms", "3600000"), AlterConfigOp.OpType.SET)))).all().get(10, TimeUnit.SECONDS);
            quietly(() -> admin.describeAcls(org.apache.kafka.common.acl.AclBindingFilter.ANY).values().get(10, TimeUnit.SECONDS));
            quietly(() -> admin.describeFeatures().featureMetadata().get(10, TimeUnit.SECONDS));
        }
    }

    private void adminAfterTraffic() throws Exception {
        try (Admin admin = Admin.create(clientConfig())) {
            TopicPartition plain = new TopicPartition(FuzzTarget.PLAIN, 0);
            quietly(() -> admin.listOffsets(Map.of(plain, OffsetSpec.latest(), new TopicPartition(routedTopic(), 0), OffsetSpec.earliest()))
                    .all().get(10, TimeUnit.SECONDS));
            quietly(() -> admin.listOffsets(Map.of(plain, OffsetSpec.forTimestamp(System.currentTimeMillis() - 60_000))).all().get(10, TimeUnit.SECONDS));
            quietly(() -> admin.listConsumerGroups().all().get(10, TimeUnit.SECONDS));
            quietly(() -> admin.describeConsumerGroups(List.of("fz-classic", "fz-848")).all().get(10, TimeUnit.SECONDS));
            quietly(() -> admin.listConsumerGroupOffsets("fz-classic").partitionsToOffsetAndMetadata().get(10, TimeUnit.SECONDS));
            quietly(() -> admin.describeProducers(List.of(plain)).all().get(10, TimeUnit.SECONDS));
            quietly(() -> admin.listTransactions().all().get(10, TimeUnit.SECONDS));
            quietly(() -> admin.describeTransactions(List.of("fz-tx")).all().get(10, TimeUnit.SECONDS));
            quietly(() -> admin.deleteRecords(Map.of(new TopicPartition("fz-created-" + through.name(), 0), RecordsToDelete.beforeOffset(0))).all().get(10, TimeUnit.SECONDS));
            quietly(() -> admin.deleteConsumerGroupOffsets("fz-classic", java.util.Set.of(new TopicPartition(FuzzTarget.PLAIN, 1))).all()
                    .get(10, TimeUnit.SECONDS));
            quietly(() -> admin.deleteTopics(List.of("fz-created-" + through.name())).all().get(10, TimeUnit.SECONDS));
        }
    }

    private void produce(Map<String, Object> extra) throws Exception {
        Map<String, Object> config = clientConfig();
        config.putAll(extra);
        config.put(ProducerConfig.LINGER_MS_CONFIG, 5);
        try (KafkaProducer<String, String> producer = new KafkaProducer<>(config, new StringSerializer(), new StringSerializer())) {
            List<java.util.concurrent.Future<?>> sent = new ArrayList<>();
            for (int i = 0; i < 5; i++) {
                sent.add(producer.send(new ProducerRecord<>(FuzzTarget.PLAIN, "k" + i, "plain value " + i)));
                sent.add(producer.send(new ProducerRecord<>(FuzzTarget.SECURE, (i % 2 == 0 ? "a" : "z") + i, "secret value " + i)));
                sent.add(producer.send(new ProducerRecord<>(routedTopic(), FuzzTarget.VIRTUAL_KEY, "score " + i)));
            }
            for (java.util.concurrent.Future<?> f : sent) {
                f.get(15, TimeUnit.SECONDS);
            }
        }
    }

    private void transactions() throws Exception {
        Map<String, Object> config = clientConfig();
        config.put(ProducerConfig.TRANSACTIONAL_ID_CONFIG, "fz-tx");
        try (KafkaProducer<String, String> producer = new KafkaProducer<>(config, new StringSerializer(), new StringSerializer())) {
            producer.initTransactions();
            producer.beginTransaction();
            producer.send(new ProducerRecord<>(FuzzTarget.PLAIN, "tx", "committed"));
            producer.send(new ProducerRecord<>(FuzzTarget.SECURE, "a-tx", "committed secret"));
            producer.sendOffsetsToTransaction(Map.of(new TopicPartition(FuzzTarget.PLAIN, 0), new OffsetAndMetadata(1)),
                    new org.apache.kafka.clients.consumer.ConsumerGroupMetadata("fz-tx-group"));
            producer.commitTransaction();
            producer.beginTransaction();
            producer.send(new ProducerRecord<>(FuzzTarget.PLAIN, "tx", "aborted"));
            producer.abortTransaction();
        }
    }

    private void consume(String group, Map<String, Object> extra) {
        Map<String, Object> config = clientConfig();
        config.putAll(extra);
        config.put(ConsumerConfig.GROUP_ID_CONFIG, group);
        config.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
        config.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
        try (KafkaConsumer<String, String> consumer = new KafkaConsumer<>(config, new StringDeserializer(), new StringDeserializer())) {
            consumer.subscribe(List.of(FuzzTarget.PLAIN, FuzzTarget.SECURE, routedTopic()));
            int read = 0;
            long deadline = System.currentTimeMillis() + 8_000;
            while (read < 10 && System.currentTimeMillis() < deadline) {
                ConsumerRecords<String, String> records = consumer.poll(Duration.ofMillis(200));
                read += records.count();
            }
            consumer.commitSync(Duration.ofSeconds(10));
            consumer.committed(consumer.assignment(), Duration.ofSeconds(10));
        }
    }

    private void assigned() {
        Map<String, Object> config = clientConfig();
        config.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
        try (KafkaConsumer<String, String> consumer = new KafkaConsumer<>(config, new StringDeserializer(), new StringDeserializer())) {
            List<TopicPartition> partitions = List.of(new TopicPartition(FuzzTarget.SECURE, 0), new TopicPartition(FuzzTarget.SECURE, 1),
                    new TopicPartition(FuzzTarget.PLAIN, 0));
            consumer.assign(partitions);
            consumer.seekToBeginning(partitions);
            consumer.poll(Duration.ofSeconds(2));
            consumer.offsetsForTimes(Map.of(partitions.get(0), System.currentTimeMillis() - 60_000));
            consumer.endOffsets(partitions);
            consumer.partitionsFor(FuzzTarget.PLAIN);
        }
    }

    private static void quietly(Step step) {
        try {
            step.run();
        } catch (Exception e) {
            LOG.info("capture call ended with {}", e.toString());
        }
    }
}
