package io.sluice.proxy.testing;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.Deserializer;

/** Reads tests make against partition 0 of a topic, through the proxy or directly; one home for every module's tests. */
public final class KafkaReads {

    private KafkaReads() {
    }

    /** Up to {@code expected} records from the start of partition 0, waiting at most 30 s for them. */
    public static <K, V> List<ConsumerRecord<K, V>> fromStart(Map<String, Object> clientConfig, String topic, int expected,
                                                             Deserializer<K> keys, Deserializer<V> values) {
        Map<String, Object> config = new HashMap<>(clientConfig);
        config.putIfAbsent(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
        List<ConsumerRecord<K, V>> records = new ArrayList<>();
        try (KafkaConsumer<K, V> consumer = new KafkaConsumer<>(config, keys, values)) {
            consumer.assign(List.of(new TopicPartition(topic, 0)));
            long deadline = System.currentTimeMillis() + 30_000;
            while (records.size() < expected && System.currentTimeMillis() < deadline) {
                consumer.poll(Duration.ofMillis(200)).forEach(records::add);
            }
        }
        return records;
    }

    /**
     * Every record partition 0 holds now, from its start to its end offset at the call: to show that something was not
     * written, without waiting out a timeout for a record that never comes.
     */
    public static <K, V> List<ConsumerRecord<K, V>> all(Map<String, Object> clientConfig, String topic, Deserializer<K> keys,
                                                       Deserializer<V> values) {
        Map<String, Object> config = new HashMap<>(clientConfig);
        config.putIfAbsent(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
        List<ConsumerRecord<K, V>> records = new ArrayList<>();
        try (KafkaConsumer<K, V> consumer = new KafkaConsumer<>(config, keys, values)) {
            TopicPartition partition = new TopicPartition(topic, 0);
            consumer.assign(List.of(partition));
            long end = consumer.endOffsets(List.of(partition), Duration.ofSeconds(30)).get(partition);
            long deadline = System.currentTimeMillis() + 30_000;
            while (consumer.position(partition) < end && System.currentTimeMillis() < deadline) {
                consumer.poll(Duration.ofMillis(200)).forEach(records::add);
            }
        }
        return records;
    }

    /** The end offset of partition 0, asked of {@code bootstrap}. */
    public static long endOffset(String bootstrap, String topic) throws Exception {
        try (Admin admin = Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap))) {
            TopicPartition tp = new TopicPartition(topic, 0);
            return admin.listOffsets(Map.of(tp, OffsetSpec.latest())).all().get().get(tp).offset();
        }
    }
}
