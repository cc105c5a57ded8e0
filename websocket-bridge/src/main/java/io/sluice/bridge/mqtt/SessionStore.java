package io.sluice.bridge.mqtt;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;

import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.PartitionInfo;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.WakeupException;
import org.apache.kafka.common.utils.Utils;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import io.sluice.bridge.config.KafkaConfig;
import io.sluice.bridge.config.MqttSessionsConfig;
import io.sluice.bridge.kafka.KafkaClients;

/**
 * Persistent MQTT sessions in Kafka (docs/bridge-mqtt.md#sessions): a compacted topic with one record per session,
 * keyed by {@link SessionKey}, its value a {@link SessionState}. Nothing is kept on the node but the
 * {@link SessionIndex}: a reader thread follows the whole topic from its beginning and indexes where each session's
 * latest record is; a CONNECT's {@link #load} waits until that reader has read its key's partition to the end as it
 * was when the CONNECT came (so it sees what another node wrote before), then reads that one record; {@link #write}
 * and {@link #end} produce with {@code acks=all}.
 *
 * <p>The reader also ends expired sessions (a tombstone for each, from whichever node sees the expiry first; a
 * tombstone twice is harmless) and tells a connection holding a session on this node when another connection, on
 * any node, took it over. Loads run on one thread of their own, at most {@code mqtt.sessions.maxLoads} waiting.
 */
public final class SessionStore implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(SessionStore.class);
    private static final Duration POLL = Duration.ofMillis(100);
    private static final int SWEEP_BATCH = 1000;

    /** A load's answer: the session's state (null: none, or not readable) and the generation the next holder takes. */
    record Loaded(SessionState state, long nextGeneration) {
    }

    /** A connection on this node holding a session: told when a newer holder took it. */
    private record Holder(String owner, long generation, Runnable takenOver) {
    }

    private record Waiter(int partition, long offset, CompletableFuture<Void> future) {
    }

    private final MqttSessionsConfig config;
    private final String topic;
    private final SessionIndex index = new SessionIndex();
    private final KafkaProducer<byte[], byte[]> producer;
    private final KafkaConsumer<byte[], byte[]> reader;
    private final KafkaConsumer<byte[], byte[]> lookups;
    private final ThreadPoolExecutor loads;
    private final Thread readerThread;
    private final int partitions;
    private final Map<SessionKey, Holder> holders = new ConcurrentHashMap<>();
    private final List<Waiter> waiters = new ArrayList<>();
    // The reader's position per partition, written by the reader thread, read under the waiters' lock.
    private final long[] positions;
    private final CompletableFuture<Void> ready = new CompletableFuture<>();
    private volatile boolean closed;
    private long nextSweep;

    private SessionStore(KafkaConfig kafka, MqttSessionsConfig config, String node) {
        this.config = config;
        this.topic = config.topic();
        String prefix = "sluice-bridge-" + node + "-mqtt-sessions";
        this.producer = new KafkaProducer<>(KafkaClients.producer(kafka, prefix + "-writer"));
        this.reader = new KafkaConsumer<>(KafkaClients.consumer(kafka, prefix + "-reader"));
        this.lookups = new KafkaConsumer<>(KafkaClients.consumer(kafka, prefix + "-lookup"));
        List<PartitionInfo> infos = reader.partitionsFor(topic, Duration.ofMillis(Math.max(kafka.publishTimeout().toMillis(), 5_000)));
        this.partitions = infos.size();
        this.positions = new long[partitions];
        this.loads = new ThreadPoolExecutor(1, 1, 0, TimeUnit.MILLISECONDS, new ArrayBlockingQueue<>(config.maxLoads()), r -> {
            Thread t = new Thread(r, prefix + "-loads");
            t.setDaemon(true);
            return t;
        });
        this.readerThread = new Thread(this::read, prefix + "-reader");
        readerThread.setDaemon(true);
    }

    /** Checks (or creates) the topic and starts following it; a topic that cannot hold sessions stops start-up. */
    public static SessionStore start(KafkaConfig kafka, MqttSessionsConfig config, String node) {
        SessionTopic.ensure(kafka, config, node);
        SessionStore store = new SessionStore(kafka, config, node);
        store.readerThread.start();
        return store;
    }

    MqttSessionsConfig config() {
        return config;
    }

    SessionIndex index() {
        return index;
    }

    // ---- reading the topic

    private void read() {
        List<TopicPartition> all = new ArrayList<>();
        for (int p = 0; p < partitions; p++) {
            all.add(new TopicPartition(topic, p));
        }
        try {
            reader.assign(all);
            reader.seekToBeginning(all);
            Map<TopicPartition, Long> startEnds = null;
            while (!closed) {
                try {
                    if (startEnds == null) {
                        startEnds = reader.endOffsets(all);
                    }
                    for (ConsumerRecord<byte[], byte[]> r : reader.poll(POLL)) {
                        apply(r);
                    }
                    caughtUp(all, startEnds);
                }
                catch (org.apache.kafka.common.errors.RetriableException e) {
                    // Kafka unreachable for a while: loads time out meanwhile (server unavailable); the reader goes on.
                    LOG.debug("Reading {}: {}", topic, e.toString());
                }
            }
        }
        catch (WakeupException e) {
            // closing
        }
        catch (RuntimeException e) {
            if (!closed) {
                LOG.error("The MQTT sessions reader of {} stopped; persistent sessions cannot be resumed on this node", topic, e);
            }
        }
        finally {
            ready.completeExceptionally(new IllegalStateException("the sessions reader stopped"));
            reader.close();
        }
    }

    /** Publishes the reader's positions to the loads waiting for them; the first time it has read everything, it is ready. */
    private void caughtUp(List<TopicPartition> all, Map<TopicPartition, Long> startEnds) {
        boolean caughtUp = true;
        synchronized (waiters) {
            for (TopicPartition tp : all) {
                positions[tp.partition()] = reader.position(tp);
                caughtUp &= positions[tp.partition()] >= startEnds.getOrDefault(tp, 0L);
            }
            for (Iterator<Waiter> it = waiters.iterator(); it.hasNext(); ) {
                Waiter w = it.next();
                if (positions[w.partition()] >= w.offset()) {
                    it.remove();
                    w.future().complete(null);
                }
            }
        }
        if (caughtUp && !ready.isDone()) {
            LOG.info("Read {} persistent MQTT session(s) from {}", index.size(), topic);
            ready.complete(null);
        }
        if (ready.isDone()) {
            sweep();
        }
    }

    private void apply(ConsumerRecord<byte[], byte[]> r) {
        SessionKey key = SessionKey.parse(r.key());
        if (key == null) {
            return;
        }
        if (r.value() == null) {
            index.apply(key, null);
            return;
        }
        // Records are the bridge's own, but bounded anyway: a state larger than any node would write is not one.
        SessionState state = r.value().length > 2 * config.maxStateBytes() ? null : SessionState.decode(r.value());
        if (state == null) {
            LOG.debug("Ignoring an unreadable record at {}-{}@{}", topic, r.partition(), r.offset());
            return;
        }
        index.apply(key, new SessionIndex.Entry(r.offset(), state.generation(), state.owner(), state.connected(), state.expiresAt()));
        Holder holder = holders.get(key);
        if (holder != null && !holder.owner().equals(state.owner()) && state.generation() > holder.generation()) {
            holders.remove(key, holder);
            holder.takenOver().run();
        }
    }

    /** Ends sessions whose expiry has passed, a batch per poll at most, no more often than checkpoints are written. */
    private void sweep() {
        long now = System.currentTimeMillis();
        if (now < nextSweep) {
            return;
        }
        nextSweep = now + config.checkpointInterval().toMillis();
        for (SessionKey key : index.expired(now, SWEEP_BATCH)) {
            if (!holders.containsKey(key)) {
                producer.send(new ProducerRecord<>(topic, key.bytes(), null));
            }
        }
    }

    /** Completes once the reader has read the partition up to {@code offset} (exclusive). */
    private CompletableFuture<Void> reached(int partition, long offset) {
        CompletableFuture<Void> f = new CompletableFuture<>();
        synchronized (waiters) {
            if (positions[partition] >= offset) {
                f.complete(null);
            }
            else {
                waiters.add(new Waiter(partition, offset, f));
            }
        }
        return f;
    }

    private int partitionOf(byte[] key) {
        // Kafka's default partitioner for a keyed record, as the producer below applies it.
        return Utils.toPositive(Utils.murmur2(key)) % partitions;
    }

    // ---- what connections ask

    /**
     * The session's latest state, as every node wrote it before now; completes on the loads thread, exceptionally
     * when Kafka did not answer within {@code mqtt.sessions.loadTimeout}. Null when {@code mqtt.sessions.maxLoads}
     * loads already wait (the node is busy).
     */
    CompletableFuture<Loaded> load(SessionKey key) {
        CompletableFuture<Loaded> result = new CompletableFuture<>();
        try {
            loads.execute(() -> {
                try {
                    result.complete(loadNow(key));
                }
                catch (Exception e) {
                    result.completeExceptionally(e);
                }
            });
        }
        catch (RejectedExecutionException e) {
            return null;
        }
        return result;
    }

    private Loaded loadNow(SessionKey key) throws Exception {
        long deadline = System.nanoTime() + config.loadTimeout().toNanos();
        ready.get(remaining(deadline), TimeUnit.NANOSECONDS);
        byte[] keyBytes = key.bytes();
        TopicPartition tp = new TopicPartition(topic, partitionOf(keyBytes));
        long end = lookups.endOffsets(List.of(tp), Duration.ofNanos(remaining(deadline))).get(tp);
        reached(tp.partition(), end).get(remaining(deadline), TimeUnit.NANOSECONDS);
        SessionIndex.Entry entry = index.get(key);
        if (entry == null) {
            return new Loaded(null, 1);
        }
        lookups.assign(List.of(tp));
        lookups.seek(tp, entry.offset());
        while (remaining(deadline) > 0) {
            for (ConsumerRecord<byte[], byte[]> r : lookups.poll(POLL)) {
                if (r.offset() >= entry.offset()) {
                    SessionState state = r.offset() == entry.offset() && r.value() != null && java.util.Arrays.equals(r.key(), keyBytes)
                            ? SessionState.decode(r.value()) : null;
                    return new Loaded(state, Math.max(entry.generation(), state == null ? 0 : state.generation()) + 1);
                }
            }
        }
        throw new java.util.concurrent.TimeoutException("the session's record was not read within mqtt.sessions.loadTimeout");
    }

    private static long remaining(long deadline) {
        return Math.max(1, deadline - System.nanoTime());
    }

    /**
     * Writes the session's state (acks=all); completes once Kafka has it and this node's index has read it back, so
     * that the next CONNECT on this node sees it. Writes of one session are in order: one producer, one partition.
     */
    CompletableFuture<Void> write(SessionKey key, SessionState state) {
        return send(key, state.encode());
    }

    /** Ends the session: a tombstone, which compaction keeps until {@code delete.retention.ms} and then drops. */
    CompletableFuture<Void> end(SessionKey key) {
        return send(key, null);
    }

    private CompletableFuture<Void> send(SessionKey key, byte[] value) {
        CompletableFuture<Void> done = new CompletableFuture<>();
        try {
            producer.send(new ProducerRecord<>(topic, key.bytes(), value), (metadata, error) -> {
                if (error != null) {
                    done.completeExceptionally(error);
                    return;
                }
                reached(metadata.partition(), metadata.offset() + 1).whenComplete((ignored, e) -> done.complete(null));
            });
        }
        catch (RuntimeException e) {
            done.completeExceptionally(e);
        }
        return done;
    }

    /** The connection {@code owner} holds the session now: {@code takenOver} runs (on the reader thread) if a newer holder writes. */
    void hold(SessionKey key, String owner, long generation, Runnable takenOver) {
        Holder previous = holders.put(key, new Holder(owner, generation, takenOver));
        if (previous != null && !previous.owner().equals(owner)) {
            // Taken over on this node: the reader would no longer find the old holder to tell.
            previous.takenOver().run();
        }
    }

    void release(SessionKey key, String owner) {
        holders.computeIfPresent(key, (k, h) -> h.owner().equals(owner) ? null : h);
    }

    @Override
    public void close() {
        closed = true;
        reader.wakeup();
        loads.shutdownNow();
        try {
            readerThread.join(5_000);
            loads.awaitTermination(5, TimeUnit.SECONDS);
        }
        catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        synchronized (waiters) {
            waiters.forEach(w -> w.future().completeExceptionally(new IllegalStateException("closed")));
            waiters.clear();
        }
        lookups.close(Duration.ofSeconds(1));
        producer.close(Duration.ofSeconds(5));
    }
}
