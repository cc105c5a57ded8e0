package io.sluice.bridge.server;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.function.Supplier;

import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.RecordsToDelete;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * Topics and records on the test cluster. Either opened at once ({@code new KafkaHelper(bootstrap)}, closed by the
 * caller), or {@link #perClass} as a {@code @RegisterExtension} field: opened before the class's tests, once the
 * class's {@code KafkaClusterExtension} (registered earlier, with {@code @ExtendWith}) has started the cluster, and
 * closed after them.
 */
public final class KafkaHelper implements AutoCloseable, BeforeAllCallback, AfterAllCallback {

    private final Supplier<String> bootstrapSource;
    private String bootstrap;
    private Admin admin;
    private KafkaProducer<byte[], byte[]> producer;

    public KafkaHelper(String bootstrap) {
        this.bootstrapSource = () -> bootstrap;
        open();
    }

    private KafkaHelper(Supplier<String> bootstrapSource) {
        this.bootstrapSource = bootstrapSource;
    }

    /** A helper for the test class's cluster, opened and closed around its tests. */
    public static KafkaHelper perClass(Supplier<String> bootstrap) {
        return new KafkaHelper(bootstrap);
    }

    @Override
    public void beforeAll(ExtensionContext context) {
        open();
    }

    @Override
    public void afterAll(ExtensionContext context) {
        close();
    }

    private void open() {
        bootstrap = bootstrapSource.get();
        admin = Admin.create(Map.of("bootstrap.servers", bootstrap));
        producer = new KafkaProducer<>(Map.of(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap,
                ProducerConfig.ACKS_CONFIG, "all",
                ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class,
                ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class));
    }

    /** The cluster's bootstrap servers, once opened. */
    public String bootstrap() {
        return bootstrap;
    }

    public String createTopic(int partitions) throws Exception {
        return createTopic(newTopicName(), partitions);
    }

    public static String newTopicName() {
        return "t" + UUID.randomUUID().toString().replace("-", "").substring(0, 10);
    }

    public String createTopic(String topic, int partitions) throws Exception {
        io.sluice.testkit.Topics.createTopics(admin, List.of(new NewTopic(topic, partitions, (short) 1)));
        return topic;
    }

    public void growTo(String topic, int partitions) throws Exception {
        admin.createPartitions(Map.of(topic, org.apache.kafka.clients.admin.NewPartitions.increaseTo(partitions))).all().get();
    }

    /** Produces to one partition and returns the record's offset. */
    public long send(String topic, int partition, String key, String value) throws Exception {
        return producer.send(new ProducerRecord<>(topic, partition, key.getBytes(StandardCharsets.UTF_8),
                value.getBytes(StandardCharsets.UTF_8))).get().offset();
    }

    /** Produces and returns the record's offset. */
    public long send(String topic, String key, byte[] value) throws Exception {
        return producer.send(new ProducerRecord<>(topic, key == null ? null : key.getBytes(StandardCharsets.UTF_8), value))
                .get().offset();
    }

    /** Produces with headers (name, UTF-8 value; a null value is a header without one) and returns the offset. */
    public long send(String topic, String key, String value, java.util.Map<String, String> headers) throws Exception {
        ProducerRecord<byte[], byte[]> record = new ProducerRecord<>(topic, key == null ? null : key.getBytes(StandardCharsets.UTF_8),
                value == null ? null : value.getBytes(StandardCharsets.UTF_8));
        headers.forEach((name, v) -> record.headers().add(name, v == null ? null : v.getBytes(StandardCharsets.UTF_8)));
        return producer.send(record).get().offset();
    }

    /** Produces the records as given, waiting once for all of them (not per record); their offsets, in order. */
    public List<Long> sendAll(List<ProducerRecord<byte[], byte[]>> records) throws Exception {
        List<java.util.concurrent.Future<org.apache.kafka.clients.producer.RecordMetadata>> sent = new ArrayList<>();
        for (ProducerRecord<byte[], byte[]> record : records) {
            sent.add(producer.send(record));
        }
        List<Long> offsets = new ArrayList<>();
        for (var f : sent) {
            offsets.add(f.get().offset());
        }
        return offsets;
    }

    /** Produces a record as given (partition, key, value, headers) and returns its offset. */
    public long send(ProducerRecord<byte[], byte[]> record) throws Exception {
        return producer.send(record).get().offset();
    }

    public long send(String topic, String key, String value) throws Exception {
        return send(topic, key, value.getBytes(StandardCharsets.UTF_8));
    }

    /** Produces the values in order under one key, waiting once for all of them (not per record); the last offset. */
    public long sendAll(String topic, String key, List<String> values) throws Exception {
        List<java.util.concurrent.Future<org.apache.kafka.clients.producer.RecordMetadata>> sent = new ArrayList<>();
        for (String value : values) {
            sent.add(producer.send(new ProducerRecord<>(topic, key.getBytes(StandardCharsets.UTF_8), value.getBytes(StandardCharsets.UTF_8))));
        }
        long last = -1;
        for (var f : sent) {
            last = f.get().offset();
        }
        return last;
    }

    /** Moves a partition's log start to {@code offset}, as retention would. */
    public void deleteBefore(String topic, int partition, long offset) throws Exception {
        admin.deleteRecords(Map.of(new TopicPartition(topic, partition), RecordsToDelete.beforeOffset(offset))).all().get();
    }

    /** Every record of partition 0 of {@code topic} up to its end offset now, read with kafka-clients. */
    public List<ConsumerRecord<byte[], byte[]>> readAll(String topic) {
        try (KafkaConsumer<byte[], byte[]> consumer = new KafkaConsumer<>(Map.of(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap),
                new ByteArrayDeserializer(), new ByteArrayDeserializer())) {
            TopicPartition tp = new TopicPartition(topic, 0);
            consumer.assign(List.of(tp));
            consumer.seekToBeginning(List.of(tp));
            long end = consumer.endOffsets(List.of(tp)).get(tp);
            List<ConsumerRecord<byte[], byte[]>> records = new ArrayList<>();
            Awaitility.await().atMost(Duration.ofSeconds(30)).until(() -> {
                consumer.poll(Duration.ofMillis(200)).forEach(records::add);
                return records.size() >= end;
            });
            return records;
        }
    }

    @Override
    public void close() {
        producer.close();
        admin.close();
    }
}
