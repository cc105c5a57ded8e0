package io.sluice.bench.bridge;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;

import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;

/**
 * What the topic holds, read back with a plain Kafka consumer after the publisher has stopped: per key, its
 * partition and the offsets of its records in order. The truth every client's deliveries are checked against, rather
 * than what the publisher believes it sent.
 */
final class TopicRecords {

    /** One key's records: its partition, and their offsets in order. */
    record KeyRecords(int partition, long[] offsets) {

        /** The offsets after {@code position}: what a client whose subscription started there is owed. */
        long[] after(long position) {
            int from = Arrays.binarySearch(offsets, position + 1);
            return Arrays.copyOfRange(offsets, from >= 0 ? from : -from - 1, offsets.length);
        }

        long last() {
            return offsets.length == 0 ? -1 : offsets[offsets.length - 1];
        }
    }

    private TopicRecords() {
    }

    /** Every record of {@code topic} up to its end offsets now, by key. */
    static Map<String, KeyRecords> read(String bootstrap, String topic, Duration timeout) {
        Properties props = new Properties();
        props.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        props.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false");
        props.put(ConsumerConfig.MAX_POLL_RECORDS_CONFIG, "10000");
        Map<String, int[]> partitionOf = new HashMap<>();
        Map<String, LongList> offsets = new HashMap<>();
        try (KafkaConsumer<byte[], byte[]> consumer = new KafkaConsumer<>(props, new ByteArrayDeserializer(), new ByteArrayDeserializer())) {
            List<TopicPartition> partitions = consumer.partitionsFor(topic, timeout).stream()
                    .map(p -> new TopicPartition(topic, p.partition())).toList();
            consumer.assign(partitions);
            consumer.seekToBeginning(partitions);
            Map<TopicPartition, Long> end = consumer.endOffsets(partitions, timeout);
            long deadline = System.nanoTime() + timeout.toNanos();
            while (partitions.stream().anyMatch(p -> consumer.position(p, timeout) < end.get(p))) {
                if (System.nanoTime() > deadline) {
                    throw new IllegalStateException("reading " + topic + " back took longer than " + timeout.toSeconds() + " s");
                }
                for (ConsumerRecord<byte[], byte[]> record : consumer.poll(Duration.ofMillis(500))) {
                    if (record.offset() >= end.get(new TopicPartition(topic, record.partition()))) {
                        continue;
                    }
                    String key = record.key() == null ? "" : new String(record.key(), StandardCharsets.UTF_8);
                    int[] partition = partitionOf.computeIfAbsent(key, k -> new int[] {record.partition()});
                    if (partition[0] != record.partition()) {
                        throw new IllegalStateException("key " + key + " is in partitions " + partition[0] + " and " + record.partition());
                    }
                    offsets.computeIfAbsent(key, k -> new LongList()).add(record.offset());
                }
            }
        }
        Map<String, KeyRecords> byKey = new HashMap<>();
        offsets.forEach((key, list) -> byKey.put(key, new KeyRecords(partitionOf.get(key)[0], list.toArray())));
        return byKey;
    }

    private static final class LongList {
        private long[] values = new long[64];
        private int size;

        void add(long value) {
            if (size == values.length) {
                values = Arrays.copyOf(values, size * 2);
            }
            values[size++] = value;
        }

        long[] toArray() {
            return Arrays.copyOf(values, size);
        }
    }
}
