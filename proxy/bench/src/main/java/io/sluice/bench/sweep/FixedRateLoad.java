package io.sluice.bench.sweep;

import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;

import org.HdrHistogram.Histogram;
import org.HdrHistogram.Recorder;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.WakeupException;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;

import io.sluice.results.OmbResultJson.Interval;
import io.sluice.testkit.bench.BenchTopics;

/**
 * One producer sending to a one-partition topic at a fixed rate while one consumer reads it, measured the way
 * OpenMessaging Benchmark measures: per interval, the rates achieved, the backlog, publish latency (send to ack),
 * publish delay (how late each send was against its schedule: the sign that the producer cannot keep up) and
 * end-to-end latency (send to receipt, same clock). A warm-up at the same rate comes first and is not counted.
 */
public final class FixedRateLoad {

    /**
     * How the producer batches: the same bytes in more or fewer Produce requests.
     *
     * @param lingerMs   linger.ms
     * @param batchBytes batch.size
     */
    public record Batching(int lingerMs, int batchBytes) {

        /** As OMB's usual Kafka driver is configured: a short linger, large batches. */
        public static final Batching OMB_DRIVER = new Batching(1, 131_072);

        public Batching {
            if (lingerMs < 0 || batchBytes <= 0) {
                throw new IllegalArgumentException("linger.ms must be 0 or more and batch.size positive, not " + lingerMs + " and " + batchBytes);
            }
        }

        /**
         * {@code LINGER_MS:BATCH_BYTES} pairs, comma-separated, e.g. {@code 0:16384,5:16384,50:1048576}.
         *
         * @throws IllegalArgumentException naming the pair that is not one
         */
        public static List<Batching> parseList(String text) {
            List<Batching> list = new ArrayList<>();
            for (String pair : text.split(",")) {
                String[] parts = pair.strip().split(":");
                try {
                    if (parts.length != 2) {
                        throw new NumberFormatException();
                    }
                    list.add(new Batching(Integer.parseInt(parts[0].strip()), Integer.parseInt(parts[1].strip())));
                } catch (IllegalArgumentException e) {
                    throw new IllegalArgumentException("--batching takes LINGER_MS:BATCH_BYTES pairs separated by commas, e.g. 0:16384,50:1048576;"
                            + " not '" + pair.strip() + "'");
                }
            }
            return list;
        }

        /** For workload names: {@code linger0-16kb}. */
        public String label() {
            return "linger" + lingerMs + "-" + (batchBytes % (1 << 20) == 0 ? batchBytes / (1 << 20) + "mb"
                    : batchBytes % 1024 == 0 ? batchBytes / 1024 + "kb" : batchBytes + "b");
        }
    }

    /** @param messagesPerSecond the producer's schedule */
    public record Settings(int messageBytes, double messagesPerSecond, Duration warmup, Duration test, Duration interval, Batching batching) {

        public Settings(int messageBytes, double messagesPerSecond, Duration warmup, Duration test, Duration interval) {
            this(messageBytes, messagesPerSecond, warmup, test, interval, Batching.OMB_DRIVER);
        }

        public Settings {
            if (messageBytes < Long.BYTES) {
                throw new IllegalArgumentException("messages need at least " + Long.BYTES + " bytes for the send timestamp");
            }
            if (!(messagesPerSecond > 0)) {
                throw new IllegalArgumentException("rate must be positive: " + messagesPerSecond);
            }
        }
    }

    /** Every interval (rates in messages per second, latencies in microseconds), and the whole window's histograms. */
    public record Result(List<Interval> intervals, Histogram publishLatency, Histogram publishDelay, Histogram endToEnd,
                         long measuredFromMs, long measuredToMs) {
    }

    private static final long MAX_LATENCY_MICROS = TimeUnit.HOURS.toMicros(1);

    private final Settings settings;
    private final AtomicLong acked = new AtomicLong();
    private final AtomicLong failed = new AtomicLong();
    private final AtomicLong consumed = new AtomicLong();
    private final Recorder publishLatency = new Recorder(MAX_LATENCY_MICROS, 3);
    private final Recorder publishDelay = new Recorder(MAX_LATENCY_MICROS, 3);
    private final Recorder endToEnd = new Recorder(MAX_LATENCY_MICROS, 3);
    private final AtomicBoolean running = new AtomicBoolean(true);
    private volatile Throwable failure;

    public FixedRateLoad(Settings settings) {
        this.settings = settings;
    }

    /**
     * Creates {@code topic}, runs warm-up then the measured intervals, and stops.
     *
     * @param brokerBootstrap the broker itself, where the topic is created (a proxy may rightly refuse CreateTopics)
     * @param bootstrap       where the load goes
     * @param windowStarts    called once, when the measured window begins (to start counting a proxy's GC, say)
     */
    public Result run(String brokerBootstrap, String bootstrap, String topic, Runnable windowStarts) throws Exception {
        BenchTopics.create(brokerBootstrap, topic, 1);
        KafkaConsumer<byte[], byte[]> consumer = consumer(bootstrap);
        Thread consumerThread = daemon("sweep-consumer", () -> consume(consumer, topic));
        Thread producerThread = daemon("sweep-producer", () -> produce(bootstrap, topic));
        consumerThread.start();
        producerThread.start();
        try {
            sleepChecking(settings.warmup().toNanos());
            // Start the window from here: counters by difference, histograms by discarding what warm-up recorded.
            publishLatency.reset();
            publishDelay.reset();
            endToEnd.reset();
            windowStarts.run();
            long from = System.currentTimeMillis();
            List<Interval> intervals = new ArrayList<>();
            Histogram allLatency = histogram();
            Histogram allDelay = histogram();
            Histogram allEndToEnd = histogram();
            long intervalNanos = settings.interval().toNanos();
            int count = (int) Math.max(1, settings.test().toNanos() / intervalNanos);
            long ackedBefore = acked.get();
            long failedBefore = failed.get();
            long consumedBefore = consumed.get();
            long started = System.nanoTime();
            long last = started;
            for (int i = 1; i <= count; i++) {
                sleepChecking(started + i * intervalNanos - System.nanoTime());
                long now = System.nanoTime();
                double seconds = (now - last) / 1e9;
                last = now;
                long a = acked.get();
                long f = failed.get();
                long c = consumed.get();
                Interval interval = new Interval((a - ackedBefore) / seconds, (f - failedBefore) / seconds, (c - consumedBefore) / seconds,
                        // A record can be read before its acknowledgement is counted; a backlog is never negative.
                        Math.max(0, a - c), publishLatency.getIntervalHistogram(), publishDelay.getIntervalHistogram(), endToEnd.getIntervalHistogram());
                ackedBefore = a;
                failedBefore = f;
                consumedBefore = c;
                allLatency.add(interval.publishLatency());
                allDelay.add(interval.publishDelay());
                allEndToEnd.add(interval.endToEnd());
                intervals.add(interval);
            }
            return new Result(intervals, allLatency, allDelay, allEndToEnd, from, System.currentTimeMillis());
        } finally {
            running.set(false);
            consumer.wakeup();
            producerThread.join(30_000);
            consumerThread.join(30_000);
        }
    }

    private void produce(String bootstrap, String topic) {
        Map<String, Object> config = new HashMap<>();
        config.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        // As OMB's Kafka driver is usually configured: acks from all replicas; batching as asked (by default OMB's).
        config.put(ProducerConfig.ACKS_CONFIG, "all");
        config.put(ProducerConfig.LINGER_MS_CONFIG, settings.batching().lingerMs());
        config.put(ProducerConfig.BATCH_SIZE_CONFIG, settings.batching().batchBytes());
        // Past saturation send() blocks on a full buffer; bounded so a stop request is seen within seconds.
        config.put(ProducerConfig.MAX_BLOCK_MS_CONFIG, 10_000);
        try (KafkaProducer<byte[], byte[]> producer = new KafkaProducer<>(config, new ByteArraySerializer(), new ByteArraySerializer())) {
            producer.partitionsFor(topic);
            // The producer copies the value into its batch during send(), so one buffer serves every message.
            byte[] value = new byte[settings.messageBytes()];
            ByteBuffer stamp = ByteBuffer.wrap(value);
            double periodNanos = 1e9 / settings.messagesPerSecond();
            long start = System.nanoTime();
            long sent = 0;
            while (running.get()) {
                long now = System.nanoTime();
                long due = start + (long) (sent * periodNanos);
                if (due > now) {
                    // Park rather than spin: a spinning load generator would take a core from the proxy on a small box.
                    LockSupport.parkNanos(Math.min(due - now, 1_000_000));
                    continue;
                }
                // Everything due by now goes out back to back; each send's lateness is recorded against its own slot.
                while (due <= now && running.get()) {
                    long sendNanos = System.nanoTime();
                    publishDelay.recordValue(Math.min(MAX_LATENCY_MICROS, (sendNanos - due) / 1000));
                    stamp.putLong(0, sendNanos);
                    producer.send(new ProducerRecord<>(topic, value), (metadata, error) -> {
                        if (error == null) {
                            acked.incrementAndGet();
                            publishLatency.recordValue(Math.min(MAX_LATENCY_MICROS, (System.nanoTime() - sendNanos) / 1000));
                        } else {
                            failed.incrementAndGet();
                        }
                    });
                    sent++;
                    due = start + (long) (sent * periodNanos);
                }
            }
            producer.close(Duration.ofSeconds(5));
        } catch (RuntimeException e) {
            if (running.get()) {
                failure = e;
            }
        }
    }

    private KafkaConsumer<byte[], byte[]> consumer(String bootstrap) {
        Map<String, Object> config = new HashMap<>();
        config.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        config.put(ConsumerConfig.MAX_POLL_RECORDS_CONFIG, 5000);
        config.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
        config.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
        return new KafkaConsumer<>(config, new ByteArrayDeserializer(), new ByteArrayDeserializer());
    }

    private void consume(KafkaConsumer<byte[], byte[]> consumer, String topic) {
        try (consumer) {
            TopicPartition partition = new TopicPartition(topic, 0);
            consumer.assign(List.of(partition));
            consumer.seekToBeginning(List.of(partition));
            while (running.get()) {
                for (ConsumerRecord<byte[], byte[]> record : consumer.poll(Duration.ofMillis(200))) {
                    long sentNanos = ByteBuffer.wrap(record.value()).getLong(0);
                    endToEnd.recordValue(Math.max(0, Math.min(MAX_LATENCY_MICROS, (System.nanoTime() - sentNanos) / 1000)));
                    consumed.incrementAndGet();
                }
            }
        } catch (WakeupException stopping) {
            // run() is done
        } catch (RuntimeException e) {
            if (running.get()) {
                failure = e;
            }
        }
    }

    private void sleepChecking(long nanos) throws Exception {
        long deadline = System.nanoTime() + nanos;
        while (System.nanoTime() < deadline) {
            if (failure != null) {
                throw new IllegalStateException("load failed: " + failure, failure);
            }
            TimeUnit.NANOSECONDS.sleep(Math.min(deadline - System.nanoTime(), 200_000_000L));
        }
    }

    private static Histogram histogram() {
        return new Histogram(MAX_LATENCY_MICROS, 3);
    }

    private static Thread daemon(String name, Runnable body) {
        Thread thread = new Thread(body, name);
        thread.setDaemon(true);
        return thread;
    }
}
