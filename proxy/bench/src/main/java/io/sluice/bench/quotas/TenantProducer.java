package io.sluice.bench.quotas;

import java.nio.ByteBuffer;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;

import org.HdrHistogram.Recorder;
import org.HdrHistogram.Histogram;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.Metric;
import org.apache.kafka.common.MetricName;
import org.apache.kafka.common.serialization.ByteArraySerializer;

/**
 * One tenant's kafka-clients producer for {@code sluice bench quotas}: it floods (sends as fast as the client lets it)
 * or sends at a steady rate, for a fixed time, then flushes. Each value starts with the record's sequence number and
 * the time it was sent (big-endian longs: number, microseconds since the epoch), for the tenant's librdkafka consumer
 * to find losses and end-to-end latency. Out: records acknowledged and failed, bytes acknowledged within the time,
 * the send-to-acknowledgement latency, and the throttle kafka-clients reports ({@code produce-throttle-time-*}).
 */
final class TenantProducer implements AutoCloseable {

    /** What one producer did. */
    record Figures(long acked, long failed, long bytesAckedInTime, double seconds, Histogram ackLatencyMicros, double throttleMaxMs,
                   double throttleAvgMs) {

        double mbPerSecond() {
            return bytesAckedInTime / seconds / 1e6;
        }
    }

    private final KafkaProducer<byte[], byte[]> producer;
    private final String topic;
    private final int recordBytes;
    private final LongAdder acked = new LongAdder();
    private final LongAdder failed = new LongAdder();
    private final LongAdder bytesInTime = new LongAdder();
    private final AtomicLong deadline = new AtomicLong(Long.MAX_VALUE);
    private final Recorder latency = new Recorder(3);
    private final LongAdder sentSoFar = new LongAdder();
    private long sequence;

    /**
     * @param flooding for the flooder: a small buffer (so the records still buffered at the end, which are acknowledged
     *                 after the measured time, are few) and large batches; else the client's defaults
     */
    TenantProducer(String bootstrap, Map<String, Object> clientConfig, String topic, int recordBytes, boolean flooding) {
        Map<String, Object> config = new HashMap<>(clientConfig);
        config.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        config.put(ProducerConfig.ACKS_CONFIG, "all");
        config.put(ProducerConfig.LINGER_MS_CONFIG, flooding ? 5 : 1);
        if (flooding) {
            config.put(ProducerConfig.BATCH_SIZE_CONFIG, 65_536);
            config.put(ProducerConfig.BUFFER_MEMORY_CONFIG, 1024 * 1024);
        }
        this.producer = new KafkaProducer<>(config, new ByteArraySerializer(), new ByteArraySerializer());
        this.topic = topic;
        this.recordBytes = Math.max(16, recordBytes);
    }

    /** Sends as fast as the client accepts records until {@code seconds} have passed, then flushes. */
    Figures flood(double seconds) {
        long start = System.nanoTime();
        long end = start + (long) (seconds * 1e9);
        deadline.set(end);
        while (System.nanoTime() < end) {
            send();
        }
        return finish(start, seconds);
    }

    /** Sends {@code perSecond} records a second, evenly spaced, until {@code seconds} have passed, then flushes. */
    Figures steady(double seconds, int perSecond) throws InterruptedException {
        long start = System.nanoTime();
        long end = start + (long) (seconds * 1e9);
        deadline.set(end);
        long interval = 1_000_000_000L / perSecond;
        for (long next = start; next < end; next += interval) {
            long wait = next - System.nanoTime();
            if (wait > 0) {
                TimeUnit.NANOSECONDS.sleep(wait);
            }
            send();
        }
        return finish(start, seconds);
    }

    /** Records sent so far (any thread), for progress lines. */
    long sent() {
        return sentSoFar.sum();
    }

    private void send() {
        byte[] value = new byte[recordBytes];
        long seq = sequence++;
        Instant now = Instant.now();
        ByteBuffer.wrap(value).putLong(seq).putLong(ChronoUnit.MICROS.between(Instant.EPOCH, now));
        long sentAt = System.nanoTime();
        producer.send(new ProducerRecord<>(topic, value), (metadata, error) -> {
            long ackedAt = System.nanoTime();
            if (error != null) {
                failed.increment();
                return;
            }
            acked.increment();
            latency.recordValue(Math.max(1, (ackedAt - sentAt) / 1000));
            if (ackedAt <= deadline.get()) {
                bytesInTime.add(value.length);
            }
        });
        sentSoFar.increment();
    }

    private Figures finish(long start, double seconds) {
        producer.flush();
        return new Figures(acked.sum(), failed.sum(), bytesInTime.sum(), seconds, latency.getIntervalHistogram(),
                metric("produce-throttle-time-max"), metric("produce-throttle-time-avg"));
    }

    private double metric(String name) {
        for (Map.Entry<MetricName, ? extends Metric> e : producer.metrics().entrySet()) {
            if (e.getKey().name().equals(name) && e.getKey().group().equals("producer-metrics")
                    && e.getValue().metricValue() instanceof Number n && !Double.isNaN(n.doubleValue())) {
                return n.doubleValue();
            }
        }
        return 0;
    }

    @Override
    public void close() {
        producer.close(java.time.Duration.ofSeconds(10));
    }
}
