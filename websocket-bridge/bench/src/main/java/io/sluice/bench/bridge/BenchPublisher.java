package io.sluice.bench.bridge;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Properties;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;
import java.util.concurrent.locks.LockSupport;

import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.ByteArraySerializer;

/**
 * Benchpub: {@code keys} keys of one topic, each at {@code ratePerKey} messages/s, sent on an even schedule (message
 * i at start + i / total rate, keys in turn, so every key is evenly spaced too). Each payload is stamped with its
 * <em>scheduled</em> time, not the time it was actually handed to the producer: if this thread or the producer falls
 * behind, the delay shows up as latency instead of being hidden (no coordinated omission).
 */
final class BenchPublisher implements AutoCloseable {

    private final KafkaProducer<byte[], byte[]> producer;
    private final String topic;
    private final byte[][] keys;
    private final double totalRate;
    private final Values values;
    private final Thread thread;
    private final LongAdder sent = new LongAdder();
    private final LongAdder sentBytes = new LongAdder();
    private final LongAdder failed = new LongAdder();
    private final AtomicLong maxLagNanos = new AtomicLong();
    private volatile boolean running = true;

    /** The record value of each send: the next update of key {@code key}, stamped {@code stamp}. */
    interface Values {
        byte[] next(int key, long stamp);
    }

    /** Values of the settings' shape: stamped filler of {@code --payload} bytes, or {@link StructuredValues}. */
    static Values values(BenchSettings settings) {
        if (settings.shape().structured()) {
            return new StructuredValues(settings.shape(), settings.endpoints(), settings.seed())::next;
        }
        int size = settings.payloadBytes();
        return (key, stamp) -> LatencyStamp.payload(stamp, size);
    }

    BenchPublisher(String bootstrap, String topic, int keys, double ratePerKey, Values values) {
        Properties props = new Properties();
        props.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        props.put(ProducerConfig.ACKS_CONFIG, "1");
        // Sent as soon as handed over: a linger would add its own delay to every latency sample.
        props.put(ProducerConfig.LINGER_MS_CONFIG, "0");
        props.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName());
        props.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName());
        this.producer = new KafkaProducer<>(props);
        this.topic = topic;
        this.keys = new byte[keys][];
        for (int k = 0; k < keys; k++) {
            this.keys[k] = BenchTopic.key(k).getBytes(StandardCharsets.UTF_8);
        }
        this.totalRate = keys * ratePerKey;
        this.values = values;
        this.thread = new Thread(this::run, "bench-publisher");
        this.thread.setDaemon(true);
    }

    BenchPublisher start() {
        thread.start();
        return this;
    }

    long sent() {
        return sent.sum();
    }

    /** Mean record value size so far, in bytes. */
    double meanValueBytes() {
        long n = sent.sum();
        return n == 0 ? 0 : (double) sentBytes.sum() / n;
    }

    long failed() {
        return failed.sum();
    }

    /** How far behind its schedule the publisher has been at worst, in ms. */
    double maxLagMillis() {
        return maxLagNanos.get() / 1e6;
    }

    private void run() {
        double periodNanos = 1e9 / totalRate;
        long start = LatencyStamp.now();
        long next = 0;
        while (running) {
            long scheduled = start + (long) (next * periodNanos);
            long now = LatencyStamp.now();
            if (scheduled > now) {
                LockSupport.parkNanos(scheduled - now);
                continue;
            }
            maxLagNanos.accumulateAndGet(now - scheduled, Math::max);
            int key = (int) (next % keys.length);
            byte[] value = values.next(key, scheduled);
            sentBytes.add(value.length);
            producer.send(new ProducerRecord<>(topic, keys[key], value), (metadata, error) -> {
                if (error != null) {
                    failed.increment();
                }
            });
            sent.increment();
            next++;
        }
    }

    @Override
    public void close() throws InterruptedException {
        running = false;
        thread.join(5_000);
        producer.close(Duration.ofSeconds(5));
    }
}
