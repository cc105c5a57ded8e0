package io.sluice.bridge.kafka;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.clients.consumer.CloseOptions;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.InterruptException;
import org.apache.kafka.common.errors.UnknownTopicOrPartitionException;
import org.apache.kafka.common.errors.WakeupException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import io.sluice.bridge.config.KafkaConfig;
import io.sluice.logging.RateLimitedByCause;

/**
 * Reads every partition of the configured topics once for the whole node: one consumer, manual assignment, no group,
 * no commits. At start-up each partition is read from its end (the bridge is a live stream; older messages come from
 * recovery). Partitions that appear later, by a topic growing or being created, are read from their beginning, since
 * everything in them is newer than the bridge's start.
 */
public final class KafkaReader implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(KafkaReader.class);
    private static final Duration POLL = Duration.ofMillis(100);
    private static final long IDLE_EVERY_NANOS = TimeUnit.SECONDS.toNanos(1);
    /**
     * How recent the cluster's last answer must be for the node to be ready. Ten {@link ClusterProbe#EVERY probes}:
     * one lost answer or a slow broker does not take the node out of its Service, a cluster gone for longer does.
     */
    public static final Duration ANSWER_MAX_AGE = Duration.ofSeconds(10);
    /** A refresh that failed (a describe that timed out during an outage) is tried again this soon, not a refresh later. */
    private static final long RETRY_NANOS = TimeUnit.SECONDS.toNanos(1);
    /** How long the reader's clients may take to close when the node stops. */
    private static final Duration CLOSE_TIMEOUT = Duration.ofSeconds(1);
    /** How long close() waits for the reader thread. */
    private static final Duration STOP_TIMEOUT = Duration.ofSeconds(10);

    private final RateLimitedByCause failures = new RateLimitedByCause(LOG);
    /** Guards {@link #closingClients}: close() interrupts the reader only before it starts closing its clients. */
    private final Object interrupts = new Object();
    private boolean closingClients;
    private final KafkaConfig config;
    private final List<String> topics;
    private final PartitionEpochs epochs;
    private final RecordSink sink;
    private final WaitingPartitions waiting;
    private final Thread thread;
    private final CompletableFuture<Void> firstAssignment = new CompletableFuture<>();
    private final Set<String> missingTopics = ConcurrentHashMap.newKeySet();
    private volatile boolean running = true;
    /** Set when the reader thread ended while the node was not stopping: liveness fails (BridgeServer). */
    private volatile boolean died;
    private volatile String lastError;
    private volatile ClusterProbe probe;
    private KafkaConsumer<byte[], byte[]> consumer;

    public KafkaReader(KafkaConfig config, List<String> topics, PartitionEpochs epochs, RecordSink sink, String nodeName) {
        this(config, topics, epochs, sink, nodeName, RecordGate.OPEN);
    }

    /** @param gate what records must wait for (a schema lookup) before the sink decodes them; their partition pauses */
    public KafkaReader(KafkaConfig config, List<String> topics, PartitionEpochs epochs, RecordSink sink, String nodeName,
                       RecordGate gate) {
        this.config = config;
        this.waiting = new WaitingPartitions(gate);
        this.topics = List.copyOf(topics);
        this.epochs = epochs;
        this.sink = sink;
        this.missingTopics.addAll(topics);
        // Named after the node: several nodes share a JVM in tests and the demo.
        this.thread = new Thread(() -> run(nodeName), "sluice-bridge-reader-" + nodeName);
        this.thread.setDaemon(true);
    }

    public void start() {
        thread.start();
    }

    /** Waits until partitions of every existing configured topic are assigned and their start offsets known. */
    public boolean awaitAssigned(Duration timeout) throws InterruptedException {
        try {
            firstAssignment.get(timeout.toMillis(), TimeUnit.MILLISECONDS);
            return true;
        }
        catch (TimeoutException e) {
            return false;
        }
        catch (ExecutionException e) {
            throw new IllegalStateException(e.getCause());
        }
    }

    /**
     * Completes once partitions of every existing configured topic are assigned and their start offsets handed to the
     * sink: from then on the node knows every epoch it reads and where it stands in it. A copy: completing it does not
     * pretend the reader started.
     */
    public CompletableFuture<Void> assignment() {
        return firstAssignment.copy();
    }

    /** Configured topics that the cluster does not have (yet). */
    public Set<String> missingTopics() {
        return Set.copyOf(missingTopics);
    }

    public boolean assigned() {
        return firstAssignment.isDone();
    }

    /**
     * False once the reader thread has ended while the node was not stopping (an error it did not survive): nothing
     * reads Kafka for this node any more, and only a restart helps, so liveness fails.
     */
    public boolean alive() {
        return !died;
    }

    public String lastError() {
        return lastError;
    }

    /** How long ago the Kafka cluster last answered the reader; null before it first did. Never blocks. */
    public Duration sinceClusterAnswered() {
        ClusterProbe p = probe;
        return p == null ? null : p.sinceLastAnswer();
    }

    private void run(String nodeName) {
        Admin admin = Admin.create(KafkaClients.common(config, "sluice-bridge-" + nodeName + "-metadata"));
        KafkaConsumer<byte[], byte[]> kafka = null;
        try {
            kafka = new KafkaConsumer<>(KafkaClients.consumer(config, "sluice-bridge-" + nodeName));
            consumer = kafka;
            ClusterProbe clusterProbe = new ClusterProbe(admin, ANSWER_MAX_AGE, ANSWER_MAX_AGE);
            probe = clusterProbe;
            long nextRefresh = System.nanoTime();
            long nextIdle = System.nanoTime() + IDLE_EVERY_NANOS;
            boolean initial = true;
            while (running) {
                clusterProbe.maybeAsk();
                if (System.nanoTime() - nextRefresh >= 0) {
                    boolean refreshed = refresh(admin, kafka, initial);
                    if (refreshed) {
                        initial = false;
                        firstAssignment.complete(null);
                    }
                    nextRefresh = System.nanoTime() + (refreshed ? config.metadataRefresh().toNanos() : RETRY_NANOS);
                }
                if (kafka.assignment().isEmpty()) {
                    sleep(POLL);
                }
                else {
                    waiting.resumeReady(kafka);
                    ConsumerRecords<byte[], byte[]> records = waiting.admit(kafka, kafka.poll(POLL));
                    Map<TopicPartition, Long> positions = new HashMap<>();
                    for (TopicPartition tp : records.partitions()) {
                        positions.put(tp, kafka.position(tp));
                    }
                    if (!records.isEmpty() || !positions.isEmpty()) {
                        sink.accept(records, positions);
                    }
                }
                if (System.nanoTime() - nextIdle >= 0) {
                    sink.idle();
                    nextIdle = System.nanoTime() + IDLE_EVERY_NANOS;
                }
            }
        }
        catch (WakeupException | InterruptException e) {
            // close() ends a blocking poll (wakeup) or a metadata call (interrupt) this way
        }
        catch (RuntimeException | Error e) {
            // One record's failure is contained before it gets here (PerRecord); this is the reader's own, or a JVM's.
            lastError = e.toString();
            LOG.error("Kafka reader stopped", e);
        }
        finally {
            died = running;
            // Bounded closes: with Kafka away, the defaults wait for the calls still pending (the probe's describe, up to
            // its 10 s timeout), and the node's stop would wait for them. A group-less consumer has nothing to commit.
            // No interrupt may reach these closes (the consumer's close throws InterruptException and logs an ERROR).
            synchronized (interrupts) {
                closingClients = true;
                Thread.interrupted();
            }
            if (kafka != null) {
                kafka.close(CloseOptions.timeout(CLOSE_TIMEOUT));
            }
            admin.close(CLOSE_TIMEOUT);
        }
    }

    /** Assigns partitions not yet read; true once every topic was looked up (whether or not it exists). */
    private boolean refresh(Admin admin, KafkaConsumer<byte[], byte[]> kafka, boolean initial) {
        Map<String, TopicDescription> found = new HashMap<>();
        for (String topic : topics) {
            try {
                found.put(topic, admin.describeTopics(List.of(topic)).allTopicNames().get(30, TimeUnit.SECONDS).get(topic));
                missingTopics.remove(topic);
            }
            catch (ExecutionException e) {
                if (e.getCause() instanceof UnknownTopicOrPartitionException) {
                    missingTopics.add(topic);
                    continue;
                }
                lastError = "describing topic " + topic + ": " + RateLimitedByCause.describe(RateLimitedByCause.rootCause(e));
                failures.logWithCause(e, "Cannot describe topic {}", topic);
                return false;
            }
            catch (TimeoutException e) {
                lastError = "describing topic " + topic + ": timed out";
                return false;
            }
            catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                running = false;
                return false;
            }
        }
        Set<TopicPartition> assigned = new HashSet<>(kafka.assignment());
        List<TopicPartition> added = new ArrayList<>();
        for (TopicDescription description : found.values()) {
            epochs.topic(description.name(), description.topicId(), description.partitions().size());
            description.partitions().forEach(p -> {
                TopicPartition tp = new TopicPartition(description.name(), p.partition());
                if (!assigned.contains(tp)) {
                    added.add(tp);
                }
            });
        }
        if (!added.isEmpty()) {
            assigned.addAll(added);
            kafka.assign(assigned);
            if (initial) {
                kafka.seekToEnd(added);
            }
            else {
                kafka.seekToBeginning(added);
            }
            Map<TopicPartition, Long> starts = new HashMap<>();
            for (TopicPartition tp : added) {
                starts.put(tp, kafka.position(tp));
            }
            sink.started(starts);
            LOG.info("Reading {} partition(s) from {}", added.size(), initial ? "their end" : "their beginning");
        }
        lastError = null;
        return true;
    }

    private static void sleep(Duration duration) {
        try {
            Thread.sleep(duration.toMillis());
        }
        catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    @Override
    public void close() {
        running = false;
        KafkaConsumer<byte[], byte[]> c = consumer;
        if (c != null) {
            c.wakeup();
        }
        // A refresh waits on the Admin client's futures (up to 30 s while Kafka is away), which wakeup() does not end.
        synchronized (interrupts) {
            if (!closingClients) {
                thread.interrupt();
            }
        }
        try {
            thread.join(STOP_TIMEOUT.toMillis());
        }
        catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        if (thread.isAlive()) {
            LOG.warn("Kafka reader still running {} s after the node stopped", STOP_TIMEOUT.toSeconds());
        }
    }

}
