package io.sluice.bench.scenario;

import java.io.PrintStream;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;

import org.HdrHistogram.Histogram;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;

/**
 * KafScale's measurements with kafka-clients against one address (the broker or the proxy). Every record carries its
 * sequence number and the {@code System.nanoTime()} it was sent at in its first 16 bytes, so the consumer, in this
 * JVM, knows the end-to-end latency and which record it is. Producers use {@code acks=all} (kcat's default) with
 * retries and idempotence, as the recovery tests need.
 */
final class KafScaleLoad {

    /** Produce and consume at once (the seed's hot path). Latencies in microseconds. */
    record HotPath(long records, double produceSeconds, double endToEndSeconds, Histogram produceLatency, Histogram endToEndLatency, long sendErrors) {
    }

    /** A restart's outcome: how long until traffic resumed, and whether every acknowledged record arrived once. */
    record Recovery(double produceResumeSeconds, double consumeResumeSeconds, boolean resumedAtCommitted, long acknowledged, long received,
                    long lost, long duplicates, long sendErrors) {
    }

    private static final int HEADER = 16;
    private static final Duration POLL = Duration.ofMillis(100);

    private final String bootstrap;
    private final int recordBytes;
    private final PrintStream out;

    KafScaleLoad(String bootstrap, int recordBytes, PrintStream out) {
        if (recordBytes < HEADER) {
            throw new IllegalArgumentException("records must be at least " + HEADER + " bytes: they carry a sequence number and a send time");
        }
        this.bootstrap = bootstrap;
        this.recordBytes = recordBytes;
        this.out = out;
    }

    /** Sends {@code records} as fast as the producer goes while a consumer, started first at the end of the topic, reads them. */
    HotPath hotPath(String topic, int records) throws Exception {
        Histogram produceLatency = histogram();
        Histogram endToEnd = histogram();
        AtomicLong errors = new AtomicLong();
        AtomicLong lastAckNanos = new AtomicLong();
        try (KafkaConsumer<byte[], byte[]> consumer = consumer("hot-" + System.nanoTime(), "latest")) {
            List<TopicPartition> partitions = partitions(consumer, topic);
            consumer.assign(partitions);
            consumer.seekToEnd(partitions);
            partitions.forEach(consumer::position);
            long start = System.nanoTime();
            Thread producing = new Thread(() -> {
                try (KafkaProducer<byte[], byte[]> producer = producer()) {
                    for (int i = 0; i < records; i++) {
                        long sent = System.nanoTime();
                        producer.send(new ProducerRecord<>(topic, value(i, sent)), (metadata, e) -> {
                            long now = System.nanoTime();
                            if (e != null) {
                                errors.incrementAndGet();
                            } else {
                                synchronized (produceLatency) {
                                    produceLatency.recordValue(Math.max(1, (now - sent) / 1000));
                                }
                            }
                            lastAckNanos.accumulateAndGet(now, Math::max);
                        });
                    }
                    producer.flush();
                }
            }, "kafscale-producer");
            producing.start();
            long received = 0;
            long lastReceived = start;
            long deadline = System.nanoTime() + TimeUnit.MINUTES.toNanos(5);
            long nextProgress = System.nanoTime() + TimeUnit.SECONDS.toNanos(1);
            while (received < records && System.nanoTime() < deadline) {
                for (ConsumerRecord<byte[], byte[]> record : consumer.poll(POLL)) {
                    long now = System.nanoTime();
                    endToEnd.recordValue(Math.max(1, (now - sentNanos(record.value())) / 1000));
                    received++;
                    lastReceived = now;
                }
                if (System.nanoTime() > nextProgress) {
                    out.printf("  hot path: %,d of %,d received%n", received, records);
                    nextProgress += TimeUnit.SECONDS.toNanos(1);
                }
            }
            producing.join();
            if (received < records) {
                throw new IllegalStateException("hot path: " + received + " of " + records + " records arrived within 5 minutes");
            }
            return new HotPath(records, (lastAckNanos.get() - start) / 1e9, (lastReceived - start) / 1e9, produceLatency, endToEnd, errors.get());
        }
    }

    /** A new consumer group reads the topic from the beginning (the seed's "consume from beginning"); msg/s over its whole run. */
    double backlog(String topic, long records) {
        long start = System.nanoTime();
        long received = 0;
        try (KafkaConsumer<byte[], byte[]> consumer = consumer("backlog-" + System.nanoTime(), "earliest")) {
            consumer.subscribe(List.of(topic));
            long deadline = System.nanoTime() + TimeUnit.MINUTES.toNanos(5);
            while (received < records && System.nanoTime() < deadline) {
                received += consumer.poll(POLL).count();
            }
        }
        if (received < records) {
            throw new IllegalStateException("backlog: " + received + " of " + records + " records read within 5 minutes");
        }
        return records / ((System.nanoTime() - start) / 1e9);
    }

    /**
     * Under a steady produce load, a consumer that commits after every poll is closed after {@code phase} and another of
     * the same group started: the time from its creation to its first record, and whether that record was at the
     * committed offset in every partition it read.
     */
    Recovery consumerRestart(String topic, int rate, Duration phase) throws Exception {
        Deliveries deliveries = new Deliveries();
        String group = "restart-" + System.nanoTime();
        try (SteadyProducer producer = new SteadyProducer(topic, rate, deliveries)) {
            Map<TopicPartition, OffsetAndMetadata> committed;
            try (KafkaConsumer<byte[], byte[]> first = consumer(group, "earliest")) {
                first.subscribe(List.of(topic));
                consumeFor(first, deliveries, phase, "consumer restart, first consumer", null);
                committed = first.committed(first.assignment());
            }
            long restart = System.nanoTime();
            try (KafkaConsumer<byte[], byte[]> second = consumer(group, "earliest")) {
                second.subscribe(List.of(topic));
                Map<TopicPartition, Long> firstOffsets = new HashMap<>();
                long firstRecord = 0;
                long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
                while (firstRecord == 0 && System.nanoTime() < deadline) {
                    ConsumerRecords<byte[], byte[]> records = second.poll(POLL);
                    if (!records.isEmpty()) {
                        firstRecord = System.nanoTime();
                        for (ConsumerRecord<byte[], byte[]> record : records) {
                            firstOffsets.putIfAbsent(new TopicPartition(record.topic(), record.partition()), record.offset());
                            deliveries.received(sequence(record.value()));
                        }
                        second.commitSync();
                    }
                }
                if (firstRecord == 0) {
                    throw new IllegalStateException("consumer restart: the second consumer got no record within 60 s");
                }
                double resume = (firstRecord - restart) / 1e9;
                out.printf("  consumer restart: first record %.3f s after the second consumer was created%n", resume);
                consumeFor(second, deliveries, phase, "consumer restart, second consumer", firstOffsets);
                producer.stop();
                drain(second, deliveries);
                boolean exact = !firstOffsets.isEmpty() && firstOffsets.entrySet().stream().allMatch(e -> {
                    // A partition the first consumer committed nothing in starts at the beginning: the topic is new, so offset 0.
                    OffsetAndMetadata at = committed.get(e.getKey());
                    return (at == null ? 0 : at.offset()) == e.getValue();
                });
                return new Recovery(Double.NaN, resume, exact, deliveries.acknowledgedCount(), deliveries.receivedCount(), deliveries.lost(),
                        deliveries.duplicates(), producer.errors());
            }
        }
    }

    /**
     * Under a steady produce load with a consumer reading, the proxy is stopped (SIGTERM) and started again on the same
     * addresses: the time from the stop until the first acknowledgement and the first record after it, then whether
     * every acknowledged record arrived once.
     */
    Recovery proxyRestart(ScenarioProxy proxy, String topic, int rate, Duration phase) throws Exception {
        Deliveries deliveries = new Deliveries();
        AtomicLong stoppedAt = new AtomicLong(Long.MAX_VALUE);
        AtomicLong firstReceivedAfter = new AtomicLong();
        AtomicBoolean reading = new AtomicBoolean(true);
        try (SteadyProducer producer = new SteadyProducer(topic, rate, deliveries);
             KafkaConsumer<byte[], byte[]> consumer = consumer("proxy-restart-" + System.nanoTime(), "earliest")) {
            producer.ackedAfter(stoppedAt);
            consumer.subscribe(List.of(topic));
            consumeFor(consumer, deliveries, phase, "proxy restart, before", null);
            long stop = System.nanoTime();
            Thread restarting = new Thread(() -> {
                try {
                    proxy.stop();
                    stoppedAt.set(System.nanoTime());
                    proxy.startAgain();
                } catch (Exception e) {
                    throw new IllegalStateException("restarting the proxy", e);
                }
            }, "proxy-restart");
            restarting.start();
            long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(120);
            long nextProgress = System.nanoTime() + TimeUnit.SECONDS.toNanos(1);
            while (reading.get() && System.nanoTime() < until) {
                for (ConsumerRecord<byte[], byte[]> record : pollQuietly(consumer)) {
                    deliveries.received(sequence(record.value()));
                    if (System.nanoTime() > stoppedAt.get()) {
                        firstReceivedAfter.compareAndSet(0, System.nanoTime());
                    }
                }
                commitQuietly(consumer);
                if (System.nanoTime() > nextProgress) {
                    out.printf("  proxy restart: %.0f s since the stop, %s; acknowledged %,d, received %,d%n", (System.nanoTime() - stop) / 1e9,
                            restarting.isAlive() ? "restarting" : "proxy up", deliveries.acknowledgedCount(), deliveries.receivedCount());
                    nextProgress += TimeUnit.SECONDS.toNanos(1);
                }
                if (!restarting.isAlive() && firstReceivedAfter.get() != 0 && producer.firstAckAfter() != 0) {
                    reading.set(false);
                }
            }
            restarting.join();
            if (firstReceivedAfter.get() == 0 || producer.firstAckAfter() == 0) {
                throw new IllegalStateException("proxy restart: traffic did not resume within 120 s (produce " + (producer.firstAckAfter() != 0)
                        + ", consume " + (firstReceivedAfter.get() != 0) + ")");
            }
            consumeFor(consumer, deliveries, phase, "proxy restart, after", null);
            producer.stop();
            drain(consumer, deliveries);
            return new Recovery((producer.firstAckAfter() - stop) / 1e9, (firstReceivedAfter.get() - stop) / 1e9, true, deliveries.acknowledgedCount(),
                    deliveries.receivedCount(), deliveries.lost(), deliveries.duplicates(), producer.errors());
        }
    }

    /** @param firstOffsets where to note the first offset read in each partition, or null */
    private void consumeFor(KafkaConsumer<byte[], byte[]> consumer, Deliveries deliveries, Duration phase, String what,
                            Map<TopicPartition, Long> firstOffsets) {
        long end = System.nanoTime() + phase.toNanos();
        long nextProgress = System.nanoTime() + TimeUnit.SECONDS.toNanos(1);
        while (System.nanoTime() < end) {
            for (ConsumerRecord<byte[], byte[]> record : pollQuietly(consumer)) {
                deliveries.received(sequence(record.value()));
                if (firstOffsets != null) {
                    firstOffsets.putIfAbsent(new TopicPartition(record.topic(), record.partition()), record.offset());
                }
            }
            commitQuietly(consumer);
            if (System.nanoTime() > nextProgress) {
                out.printf("  %s: acknowledged %,d, received %,d%n", what, deliveries.acknowledgedCount(), deliveries.receivedCount());
                nextProgress += TimeUnit.SECONDS.toNanos(1);
            }
        }
    }

    /** Reads until every acknowledged record has arrived, or 30 s have passed (what is missing then is lost). */
    private static void drain(KafkaConsumer<byte[], byte[]> consumer, Deliveries deliveries) {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (!deliveries.allReceived() && System.nanoTime() < deadline) {
            for (ConsumerRecord<byte[], byte[]> record : pollQuietly(consumer)) {
                deliveries.received(sequence(record.value()));
            }
            commitQuietly(consumer);
        }
    }

    // While the proxy is down a poll or a commit may fail; the consumer carries on from its position, as an application would.
    private static ConsumerRecords<byte[], byte[]> pollQuietly(KafkaConsumer<byte[], byte[]> consumer) {
        try {
            return consumer.poll(POLL);
        } catch (org.apache.kafka.common.errors.RetriableException e) {
            return ConsumerRecords.empty();
        }
    }

    private static void commitQuietly(KafkaConsumer<byte[], byte[]> consumer) {
        try {
            consumer.commitSync(Duration.ofSeconds(5));
        } catch (org.apache.kafka.common.KafkaException e) {
            // Not committed: a later commit covers it; a restart in between would re-read (counted as duplicates).
        }
    }

    /** Sends numbered records at a fixed rate on its own thread, noting each acknowledgement. */
    private final class SteadyProducer implements AutoCloseable {
        private final KafkaProducer<byte[], byte[]> producer = producer();
        private final AtomicBoolean running = new AtomicBoolean(true);
        private final AtomicLong errors = new AtomicLong();
        private final AtomicLong firstAckAfter = new AtomicLong();
        private volatile AtomicLong after = new AtomicLong(Long.MAX_VALUE);
        private final Thread thread;

        SteadyProducer(String topic, int rate, Deliveries deliveries) {
            thread = new Thread(() -> {
                long interval = TimeUnit.SECONDS.toNanos(1) / rate;
                long next = System.nanoTime();
                int sequence = 0;
                while (running.get()) {
                    int n = sequence++;
                    producer.send(new ProducerRecord<>(topic, value(n, System.nanoTime())), (metadata, e) -> {
                        if (e != null) {
                            errors.incrementAndGet();
                            return;
                        }
                        deliveries.acknowledged(n);
                        long now = System.nanoTime();
                        if (now > after.get()) {
                            firstAckAfter.compareAndSet(0, now);
                        }
                    });
                    next += interval;
                    long wait = next - System.nanoTime();
                    if (wait > 0) {
                        LockSupport.parkNanos(wait);
                    }
                }
            }, "kafscale-steady-producer");
            thread.start();
        }

        /** Notes the first acknowledgement that arrives after the time {@code instant} will hold. */
        void ackedAfter(AtomicLong instant) {
            after = instant;
        }

        long firstAckAfter() {
            return firstAckAfter.get();
        }

        long errors() {
            return errors.get();
        }

        /** Stops sending and waits for every record sent to be acknowledged or to fail. */
        void stop() throws InterruptedException {
            running.set(false);
            thread.join();
            producer.flush();
        }

        @Override
        public void close() throws InterruptedException {
            stop();
            producer.close(Duration.ofSeconds(10));
        }
    }

    private byte[] value(int sequence, long sentNanos) {
        byte[] value = new byte[recordBytes];
        ByteBuffer.wrap(value).putLong(sequence).putLong(sentNanos);
        return value;
    }

    static int sequence(byte[] value) {
        return (int) ByteBuffer.wrap(value).getLong(0);
    }

    static long sentNanos(byte[] value) {
        return ByteBuffer.wrap(value).getLong(8);
    }

    private KafkaProducer<byte[], byte[]> producer() {
        Properties config = new Properties();
        config.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        config.put(ProducerConfig.ACKS_CONFIG, "all");
        config.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, "true");
        config.put(ProducerConfig.LINGER_MS_CONFIG, "5");
        config.put(ProducerConfig.DELIVERY_TIMEOUT_MS_CONFIG, "120000");
        return new KafkaProducer<>(config, new ByteArraySerializer(), new ByteArraySerializer());
    }

    private KafkaConsumer<byte[], byte[]> consumer(String group, String reset) {
        Properties config = new Properties();
        config.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        config.put(ConsumerConfig.GROUP_ID_CONFIG, group);
        config.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, reset);
        config.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false");
        return new KafkaConsumer<>(config, new ByteArrayDeserializer(), new ByteArrayDeserializer());
    }

    private static List<TopicPartition> partitions(KafkaConsumer<byte[], byte[]> consumer, String topic) {
        List<TopicPartition> partitions = new ArrayList<>();
        consumer.partitionsFor(topic).forEach(p -> partitions.add(new TopicPartition(topic, p.partition())));
        return partitions;
    }

    private static Histogram histogram() {
        return new Histogram(TimeUnit.MINUTES.toMicros(10), 3);
    }
}
