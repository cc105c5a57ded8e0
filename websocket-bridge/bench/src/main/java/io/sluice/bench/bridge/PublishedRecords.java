package io.sluice.bench.bridge;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.BitSet;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.atomic.LongAdder;

import org.HdrHistogram.Recorder;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;

import io.netty.buffer.Unpooled;

/**
 * What actually reached Kafka: a plain kafka-clients consumer (no group, every partition from the beginning) reads
 * the bench topic, keeps the records of publishing clients ({@link BenchTopic#PUBLISH_PREFIX} keys), measures
 * scheduled publish → record read here, and notes which {@code client:index} it has seen and how often, so that every
 * acked publish can be checked to be in Kafka exactly once.
 */
final class PublishedRecords implements AutoCloseable {

    private final KafkaConsumer<byte[], byte[]> consumer;
    private final Thread thread;
    private final Recorder latency = new Recorder(3);
    private final LongAdder records = new LongAdder();
    private final AtomicReference<String> firstProblem = new AtomicReference<>();
    // The consumer thread's only; read after it has stopped (join).
    private final Map<Integer, BitSet> seen = new HashMap<>();
    private long duplicates;
    private long unreadable;
    private volatile boolean running = true;

    PublishedRecords(String bootstrap, String topic) {
        Properties props = new Properties();
        props.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        props.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false");
        props.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName());
        props.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName());
        // Only what was acked (acks=all) counts; read_committed would change nothing for a non-transactional producer.
        props.put(ConsumerConfig.FETCH_MAX_WAIT_MS_CONFIG, "10");
        this.consumer = new KafkaConsumer<>(props);
        List<TopicPartition> partitions = consumer.partitionsFor(topic, Duration.ofSeconds(30)).stream()
                .map(p -> new TopicPartition(topic, p.partition())).toList();
        consumer.assign(partitions);
        consumer.seekToBeginning(partitions);
        this.thread = new Thread(this::run, "bench-published-records");
        this.thread.setDaemon(true);
    }

    PublishedRecords start() {
        thread.start();
        return this;
    }

    private void run() {
        try {
            while (running) {
                for (ConsumerRecord<byte[], byte[]> r : consumer.poll(Duration.ofMillis(100))) {
                    if (r.key() != null && r.key().length > 0 && r.key()[0] == BenchTopic.PUBLISH_PREFIX.charAt(0)) {
                        read(r.value());
                    }
                }
            }
        } catch (RuntimeException e) {
            firstProblem.compareAndSet(null, "consumer: " + e);
        } finally {
            consumer.close(Duration.ofSeconds(5));
        }
    }

    private void read(byte[] value) {
        long now = LatencyStamp.now();
        long stamp = value == null ? -1 : LatencyStamp.read(Unpooled.wrappedBuffer(value), 0);
        int[] name = value == null ? null : name(value);
        if (stamp < 0 || name == null) {
            unreadable++;
            return;
        }
        records.increment();
        latency.recordValue(Math.max(0, (now - stamp) / 1_000));
        BitSet client = seen.computeIfAbsent(name[0], c -> new BitSet());
        if (client.get(name[1])) {
            duplicates++;
        } else {
            client.set(name[1]);
        }
    }

    /** {@code client:index} after the stamp and its space, or null. */
    static int[] name(byte[] value) {
        String text = new String(value, LatencyStamp.DIGITS + 1, Math.min(24, value.length - LatencyStamp.DIGITS - 1), StandardCharsets.US_ASCII);
        int space = text.indexOf(' ');
        int colon = text.indexOf(':');
        if (space < 0 || colon <= 0 || colon > space) {
            return null;
        }
        try {
            return new int[] {Integer.parseInt(text.substring(0, colon)), Integer.parseInt(text.substring(colon + 1, space))};
        } catch (NumberFormatException e) {
            return null;
        }
    }

    Recorder latency() {
        return latency;
    }

    /** Distinct and repeated publishes read so far. */
    long records() {
        return records.sum();
    }

    String firstProblem() {
        return firstProblem.get();
    }

    /** Stops reading; afterwards {@link #seen}, {@link #duplicates} and {@link #unreadable} are final. */
    void stop() throws InterruptedException {
        running = false;
        thread.join(15_000);
    }

    /** The indexes of {@code client}'s publishes read, after {@link #stop}. */
    BitSet seen(int client) {
        return seen.getOrDefault(client, new BitSet());
    }

    /** Every client with a record read, after {@link #stop}. */
    java.util.Set<Integer> clients() {
        return seen.keySet();
    }

    long duplicates() {
        return duplicates;
    }

    long unreadable() {
        return unreadable;
    }

    @Override
    public void close() throws InterruptedException {
        stop();
    }
}
