package io.sluice.bridge.kafka;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Predicate;

import org.apache.kafka.clients.consumer.CloseOptions;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;

import io.sluice.bridge.config.KafkaConfig;

/**
 * Reads a range of one partition's log for recovery, beside the live reader: a few consumers of its own, so a
 * reconnecting client never makes the live stream wait. Bounded four ways: at most {@code concurrency} reads at once,
 * at most {@code queue} more waiting (callers {@link #reserve} room first and are refused beyond it), at most
 * {@code maxRecords} records per read (the caller's ranges), and a deadline per read.
 */
public final class LogReader implements AutoCloseable {

    /**
     * What a read found.
     *
     * @param logStart the partition's earliest offset when read; offsets before it are gone from the log
     * @param records  the records in the range from {@code max(from, logStart)} that passed the filter, in order
     */
    public record Range(long logStart, List<ConsumerRecord<byte[], byte[]>> records) {
    }

    private final KafkaConfig config;
    private final Duration timeout;
    private final ExecutorService executor;
    private final BlockingQueue<KafkaConsumer<byte[], byte[]>> idle;
    private final String nodeName;
    private final AtomicInteger created = new AtomicInteger();
    private final int capacity;
    // Reads reserved and not yet finished: running, waiting in the executor's queue, or about to be submitted.
    private final AtomicInteger pending = new AtomicInteger();

    public LogReader(KafkaConfig config, int concurrency, int queue, Duration timeout, String nodeName) {
        this.config = config;
        this.capacity = concurrency + queue;
        this.timeout = timeout;
        this.nodeName = nodeName;
        this.idle = new ArrayBlockingQueue<>(concurrency);
        this.executor = Executors.newFixedThreadPool(concurrency, r -> {
            Thread t = new Thread(r, "sluice-bridge-recovery");
            t.setDaemon(true);
            return t;
        });
    }

    /**
     * Claims room for {@code reads} reads, all or none: false when the node already has {@code concurrency + queue}
     * reads running or waiting. A claim on an idle reader always succeeds, so one subscription covering more partitions
     * than that can still recover; the executor's queue therefore holds at most {@code max(capacity, one claim)}.
     */
    public boolean reserve(int reads) {
        while (true) {
            int now = pending.get();
            if (now > 0 && now + reads > capacity) {
                return false;
            }
            if (pending.compareAndSet(now, now + reads)) {
                return true;
            }
        }
    }

    /**
     * Reads {@code [from, to]} (inclusive) of {@code partition}, keeping the records {@code filter} accepts. Uses up
     * one read {@link #reserve reserved} before.
     */
    public CompletableFuture<Range> read(TopicPartition partition, long from, long to,
                                         Predicate<ConsumerRecord<byte[], byte[]>> filter) {
        try {
            return CompletableFuture.supplyAsync(() -> {
                try {
                    KafkaConsumer<byte[], byte[]> consumer = borrow();
                    try {
                        return read(consumer, partition, from, to, filter);
                    }
                    finally {
                        consumer.unsubscribe();
                        idle.offer(consumer);
                    }
                }
                finally {
                    pending.decrementAndGet();
                }
            }, executor);
        }
        catch (RejectedExecutionException e) {
            // Shutting down.
            pending.decrementAndGet();
            return CompletableFuture.failedFuture(e);
        }
    }

    private Range read(KafkaConsumer<byte[], byte[]> consumer, TopicPartition partition, long from, long to,
                       Predicate<ConsumerRecord<byte[], byte[]>> filter) {
        long deadline = System.nanoTime() + timeout.toNanos();
        consumer.assign(List.of(partition));
        Map<TopicPartition, Long> beginning = consumer.beginningOffsets(List.of(partition), timeout);
        long logStart = beginning.getOrDefault(partition, 0L);
        long start = Math.max(from, logStart);
        List<ConsumerRecord<byte[], byte[]>> kept = new ArrayList<>();
        if (start > to) {
            return new Range(logStart, kept);
        }
        consumer.seek(partition, start);
        while (consumer.position(partition, timeout) <= to) {
            if (System.nanoTime() - deadline > 0) {
                throw new IllegalStateException("reading " + partition + " from " + start + " to " + to + " took longer than " + timeout);
            }
            for (ConsumerRecord<byte[], byte[]> record : consumer.poll(Duration.ofMillis(200)).records(partition)) {
                if (record.offset() > to) {
                    break;
                }
                if (filter.test(record)) {
                    kept.add(record);
                }
            }
        }
        return new Range(logStart, kept);
    }

    private KafkaConsumer<byte[], byte[]> borrow() {
        KafkaConsumer<byte[], byte[]> consumer = idle.poll();
        if (consumer != null) {
            return consumer;
        }
        Map<String, Object> props = KafkaClients.consumer(config, "sluice-bridge-" + nodeName + "-recovery-" + created.incrementAndGet());
        props.put(ConsumerConfig.MAX_POLL_RECORDS_CONFIG, 2000);
        return new KafkaConsumer<>(props);
    }

    @Override
    public void close() {
        executor.shutdownNow();
        try {
            executor.awaitTermination(10, TimeUnit.SECONDS);
        }
        catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        KafkaConsumer<byte[], byte[]> consumer;
        while ((consumer = idle.poll()) != null) {
            consumer.close(CloseOptions.timeout(Duration.ofSeconds(1)));
        }
    }
}
