package io.sluice.bench;

import java.io.PrintStream;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.function.LongSupplier;

import org.HdrHistogram.Histogram;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;

import io.sluice.bench.targets.TargetCredentials;
import io.sluice.testkit.bench.BenchTopics;

/**
 * The same producer+consumer load against several bootstrap addresses (the broker itself, the proxy in
 * front of it), alternating within one run so that every target sees the same machine. Two phases per
 * target and round: a throughput phase (as fast as one producer can go, one partition) and a latency
 * phase (a fixed, modest rate, no batching delay). Proxy CPU is what the caller's supplier reports: the
 * CPU time of the proxy's event-loop threads.
 */
public final class ProxyBenchmark {

    /** What to run. */
    public record Settings(int records, int recordBytes, int rounds, int latencyRate, Duration latencyDuration) {
    }

    /** One target's measurements in one round; latencies in microseconds. */
    public record Phase(String target, int round, double mbPerSecond, double recordsPerSecond, double proxyCpuMsPerMb,
                        Histogram produceLatencyMicros, Histogram endToEndLatencyMicros) {
    }

    /** Told when the measured rounds begin (after warm-up) and end: what {@code --profile} records between. */
    public interface RoundsListener {
        void measuringStarts();

        void measuringEnds();
    }

    private static final RoundsListener NO_LISTENER = new RoundsListener() {
        @Override
        public void measuringStarts() {
        }

        @Override
        public void measuringEnds() {
        }
    };

    private final Settings settings;
    private final String brokerBootstrap;
    private final Map<String, String> targets;
    private final Map<String, TargetCredentials.Issued> credentials;
    private final LongSupplier proxyCpuNanos;
    private final PrintStream out;
    private RoundsListener rounds = NO_LISTENER;

    /**
     * @param brokerBootstrap the broker itself, where the benchmark's topics are created: creating topics is
     *                        administration, not the load under test, and a proxy may rightly refuse it (KeyRouting does)
     * @param targets         target name to bootstrap address, in the order of the first round
     * @param proxyCpuNanos   CPU time consumed so far by the proxy's threads
     */
    public ProxyBenchmark(Settings settings, String brokerBootstrap, Map<String, String> targets, LongSupplier proxyCpuNanos, PrintStream out) {
        this(settings, brokerBootstrap, targets, Map.of(), proxyCpuNanos, out);
    }

    /**
     * @param credentials by target name, for targets whose proxy authenticates clients; the others need none
     */
    public ProxyBenchmark(Settings settings, String brokerBootstrap, Map<String, String> targets, Map<String, TargetCredentials.Issued> credentials,
                          LongSupplier proxyCpuNanos, PrintStream out) {
        this.settings = settings;
        this.brokerBootstrap = brokerBootstrap;
        this.targets = targets;
        this.credentials = credentials;
        this.proxyCpuNanos = proxyCpuNanos;
        this.out = out;
    }

    public ProxyBenchmark onRounds(RoundsListener listener) {
        this.rounds = listener;
        return this;
    }

    public List<Phase> run() throws Exception {
        List<Phase> phases = new ArrayList<>();
        List<String> names = new ArrayList<>(targets.keySet());
        // JIT, connection set-up and the broker's first segments would otherwise land on whichever target goes first.
        for (String target : names) {
            throughputPhase(String.format("warm-up      %-12s", target), target, targets.get(target), Math.min(settings.records(), 50_000), 0);
        }
        rounds.measuringStarts();
        try {
            for (int round = 1; round <= settings.rounds(); round++) {
                List<String> order = new ArrayList<>(names);
                if (round % 2 == 0) {
                    Collections.reverse(order);
                }
                for (String target : order) {
                    phases.add(runPhase(target, round, targets.get(target)));
                }
            }
        } finally {
            rounds.measuringEnds();
        }
        return phases;
    }

    private Phase runPhase(String target, int round, String bootstrap) throws Exception {
        String prefix = String.format("round %d/%d  %-12s", round, settings.rounds(), target);
        double[] throughput = throughputPhase(prefix, target, bootstrap, settings.records(), round);
        String topic = "bench-" + target + "-" + round + "-" + System.nanoTime();

        int latencyRecords = (int) (settings.latencyRate() * settings.latencyDuration().toSeconds());
        out.printf("%s latency: %,d records/s for %ds...%n", prefix, settings.latencyRate(), settings.latencyDuration().toSeconds());
        Histogram produceLatency = new Histogram(3_600_000_000L, 3);
        Histogram e2eLatency = new Histogram(3_600_000_000L, 3);
        String latencyTopic = topic + "-latency";
        createTopic(latencyTopic);
        Thread latencyConsumer = startConsumer(target, bootstrap, latencyTopic, latencyRecords, e2eLatency);
        try (KafkaProducer<byte[], byte[]> producer = producer(target, bootstrap, 0)) {
            producer.partitionsFor(latencyTopic);
            long intervalNanos = 1_000_000_000L / settings.latencyRate();
            long next = System.nanoTime();
            int padding = Math.max(0, settings.recordBytes() - Long.BYTES);
            for (int i = 0; i < latencyRecords; i++) {
                long now;
                while ((now = System.nanoTime()) < next) {
                    Thread.onSpinWait();
                }
                next += intervalNanos;
                long sentAt = now;
                byte[] value = ByteBuffer.allocate(Long.BYTES + padding).putLong(sentAt).array();
                producer.send(new ProducerRecord<>(latencyTopic, value), (metadata, error) -> {
                    if (error == null) {
                        // Callbacks run on the producer's single I/O thread.
                        produceLatency.recordValue(Math.max(0, (System.nanoTime() - sentAt) / 1000));
                    }
                });
            }
            producer.flush();
        }
        latencyConsumer.join();
        out.printf("%s produce p50 %.2f ms p99 %.2f ms; end-to-end p50 %.2f ms p99 %.2f ms%n", prefix,
                produceLatency.getValueAtPercentile(50) / 1000.0, produceLatency.getValueAtPercentile(99) / 1000.0,
                e2eLatency.getValueAtPercentile(50) / 1000.0, e2eLatency.getValueAtPercentile(99) / 1000.0);
        return new Phase(target, round, throughput[0], throughput[1], throughput[2], produceLatency, e2eLatency);
    }

    /** Returns MB/s, records/s and proxy CPU ms per MB moved. */
    private double[] throughputPhase(String prefix, String target, String bootstrap, int records, int seed) throws Exception {
        String topic = "bench-" + target + "-" + seed + "-" + System.nanoTime();
        createTopic(topic);
        out.printf("%s throughput: %,d records of %,d bytes...%n", prefix, records, settings.recordBytes());
        long cpuBefore = proxyCpuNanos.getAsLong();
        long start = System.nanoTime();
        Thread consumer = startConsumer(target, bootstrap, topic, records, null);
        try (KafkaProducer<byte[], byte[]> producer = producer(target, bootstrap, 5)) {
            byte[] value = new byte[settings.recordBytes()];
            new Random(seed).nextBytes(value);
            for (int i = 0; i < records; i++) {
                producer.send(new ProducerRecord<>(topic, value));
            }
            producer.flush();
        }
        consumer.join();
        long elapsed = System.nanoTime() - start;
        long cpu = proxyCpuNanos.getAsLong() - cpuBefore;
        double mb = (double) records * settings.recordBytes() / 1_000_000.0;
        double seconds = elapsed / 1e9;
        // Each byte crosses the proxy twice: produced, then consumed.
        double cpuMsPerMb = cpu / 1e6 / (2 * mb);
        out.printf("%s %,.1f MB/s  %,.0f records/s  proxy CPU %.3f ms per MB moved%n", prefix, mb / seconds, records / seconds, cpuMsPerMb);
        return new double[] { mb / seconds, records / seconds, cpuMsPerMb };
    }

    private TargetCredentials.Issued credentials(String target) {
        return credentials.getOrDefault(target, TargetCredentials.Issued.NONE);
    }

    private KafkaProducer<byte[], byte[]> producer(String target, String bootstrap, int lingerMs) {
        Map<String, Object> config = new HashMap<>(credentials(target).clientConfig());
        config.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        config.put(ProducerConfig.ACKS_CONFIG, "all");
        config.put(ProducerConfig.LINGER_MS_CONFIG, lingerMs);
        config.put(ProducerConfig.BATCH_SIZE_CONFIG, 65_536);
        config.put(ProducerConfig.BUFFER_MEMORY_CONFIG, 64L * 1024 * 1024);
        return new KafkaProducer<>(config, new ByteArraySerializer(), new ByteArraySerializer());
    }

    /** Reads {@code expected} records from the start of partition 0, recording end-to-end latency if asked. */
    private Thread startConsumer(String target, String bootstrap, String topic, int expected, Histogram e2e) {
        Map<String, Object> clientConfig = credentials(target).clientConfig();
        Thread t = new Thread(() -> {
            Map<String, Object> config = new HashMap<>(clientConfig);
            config.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
            config.put(ConsumerConfig.MAX_POLL_RECORDS_CONFIG, 5000);
            config.put(ConsumerConfig.FETCH_MAX_WAIT_MS_CONFIG, 50);
            try (KafkaConsumer<byte[], byte[]> consumer = new KafkaConsumer<>(config, new ByteArrayDeserializer(), new ByteArrayDeserializer())) {
                TopicPartition tp = new TopicPartition(topic, 0);
                consumer.assign(List.of(tp));
                consumer.seekToBeginning(List.of(tp));
                long seen = 0;
                long deadline = System.currentTimeMillis() + 600_000;
                while (seen < expected && System.currentTimeMillis() < deadline) {
                    for (ConsumerRecord<byte[], byte[]> r : consumer.poll(Duration.ofMillis(100))) {
                        seen++;
                        if (e2e != null && r.value().length >= Long.BYTES) {
                            e2e.recordValue(Math.max(0, (System.nanoTime() - ByteBuffer.wrap(r.value()).getLong()) / 1000));
                        }
                    }
                }
                if (seen < expected) {
                    throw new IllegalStateException("consumer of " + topic + " saw " + seen + " of " + expected + " records");
                }
            }
        }, "bench-consumer");
        t.setDaemon(true);
        t.start();
        return t;
    }

    private void createTopic(String topic) throws Exception {
        BenchTopics.create(brokerBootstrap, topic, 1);
    }
}
