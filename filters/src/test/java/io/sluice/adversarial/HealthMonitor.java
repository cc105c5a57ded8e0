package io.sluice.adversarial;

import java.lang.management.ManagementFactory;
import java.lang.management.MemoryMXBean;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;

import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;

/**
 * Whether the proxy still serves everyone else while it is attacked: a long-lived kafka-clients producer and group
 * consumer round-trip a record through the encrypted topic, a fresh raw connection authenticates and is answered (the
 * proxy still accepts and its event loops run), the proxy's event-loop threads are all alive, and the heap after a
 * full GC stays within a bound of where it started. The proxy runs in this JVM, so the heap is its heap (and the
 * in-VM broker's, which a fuzz run does not grow).
 */
final class HealthMonitor implements AutoCloseable {

    private static final String EVENT_LOOP_PREFIX = "sluice-proxy";

    private final KafkaProducer<String, String> producer;
    private final KafkaConsumer<String, String> consumer;
    private final List<WireProbe> probes;
    private final long heapBoundBytes;
    private final MemoryMXBean memory = ManagementFactory.getMemoryMXBean();
    private final Set<Thread> eventLoops = ConcurrentHashMap.newKeySet();
    private long baselineHeap;
    private long peakHeap;
    private int roundTrips;

    HealthMonitor(FuzzTarget target, List<WireProbe> probes, long heapBoundBytes) {
        this.probes = probes;
        this.heapBoundBytes = heapBoundBytes;
        String token = FuzzTarget.restrictedToken();
        Map<String, Object> producerConfig = new HashMap<>(target.clientConfig(token));
        producerConfig.put(ProducerConfig.ACKS_CONFIG, "all");
        producer = new KafkaProducer<>(producerConfig, new StringSerializer(), new StringSerializer());
        Map<String, Object> consumerConfig = new HashMap<>(target.clientConfig(token));
        consumerConfig.put(ConsumerConfig.GROUP_ID_CONFIG, "fz-health");
        consumerConfig.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
        consumer = new KafkaConsumer<>(consumerConfig, new StringDeserializer(), new StringDeserializer());
        consumer.subscribe(List.of(FuzzTarget.HEALTH));
    }

    /** A first round trip (the consumer joins its group), then the heap baseline. */
    void start() {
        String problem = roundTrip();
        if (problem != null) {
            throw new IllegalStateException("the healthy clients do not work before fuzzing: " + problem);
        }
        noteEventLoops();
        baselineHeap = heapAfterGc();
        peakHeap = baselineHeap;
    }

    /** Null if everything is well, else what is not. */
    String check() {
        List<String> problems = new ArrayList<>();
        String accept = acceptCheck();
        if (accept != null) {
            problems.add("a new connection: " + accept);
        }
        String trip = roundTrip();
        if (trip != null) {
            problems.add("the healthy producer/consumer: " + trip);
        }
        for (Thread loop : eventLoops) {
            if (!loop.isAlive()) {
                problems.add("event-loop thread " + loop.getName() + " died");
            }
        }
        noteEventLoops();
        long heap = heapAfterGc();
        peakHeap = Math.max(peakHeap, heap);
        if (heap - baselineHeap > heapBoundBytes) {
            problems.add("heap after GC grew by " + (heap - baselineHeap) / (1024 * 1024) + " MiB (bound " + heapBoundBytes / (1024 * 1024) + " MiB)");
        }
        return problems.isEmpty() ? null : String.join("; ", problems);
    }

    private String acceptCheck() {
        for (WireProbe probe : probes) {
            String problem = acceptCheck(probe);
            if (problem != null) {
                return problem;
            }
        }
        return null;
    }

    private static String acceptCheck(WireProbe probe) {
        WireProbe.Result result = probe.send(new Mutation(Mutation.Kind.BIT_FLIP, "none (health check)",
                WireProbe.frame(org.apache.kafka.common.protocol.ApiKeys.METADATA, (short) 12, 42,
                        new org.apache.kafka.common.message.MetadataRequestData().setTopics(List.of())), false, true), WireProbe.Mode.RESTRICTED);
        return result.outcome() == WireProbe.Outcome.ANSWERED ? null : result.outcome() + ": " + result.detail();
    }

    private String roundTrip() {
        String value = "health-" + (++roundTrips) + "-" + System.nanoTime();
        try {
            producer.send(new ProducerRecord<>(FuzzTarget.HEALTH, "health", value)).get(20, TimeUnit.SECONDS);
        } catch (Exception e) {
            return "produce failed: " + e;
        }
        long deadline = System.currentTimeMillis() + 30_000;
        while (System.currentTimeMillis() < deadline) {
            for (ConsumerRecord<String, String> record : consumer.poll(Duration.ofMillis(200))) {
                if (record.value().equals(value)) {
                    return null;
                }
            }
        }
        return "the record produced was not consumed within 30 s";
    }

    private void noteEventLoops() {
        Thread.getAllStackTraces().keySet().stream().filter(t -> t.getName().startsWith(EVENT_LOOP_PREFIX)).forEach(eventLoops::add);
    }

    private long heapAfterGc() {
        memory.gc();
        memory.gc();
        return memory.getHeapMemoryUsage().getUsed();
    }

    long baselineHeapMiB() {
        return baselineHeap / (1024 * 1024);
    }

    long peakHeapMiB() {
        return peakHeap / (1024 * 1024);
    }

    int roundTrips() {
        return roundTrips;
    }

    @Override
    public void close() {
        producer.close(Duration.ofSeconds(5));
        consumer.close(Duration.ofSeconds(5));
    }
}
