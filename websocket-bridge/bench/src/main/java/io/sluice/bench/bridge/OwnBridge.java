package io.sluice.bench.bridge;

import java.io.PrintStream;
import java.net.URI;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import java.util.concurrent.ExecutionException;

import org.apache.kafka.common.errors.TopicExistsException;

import io.sluice.testkit.bench.BenchKafka;
import io.sluice.testkit.bench.BenchTopics;

/**
 * The bench's own bridge in a child JVM, on its own Kafka (a child JVM too) or a running one, for one
 * {@link BenchSettings} run: what {@code sluice bench bridge} does without {@code --bridge}, and what the seeds'
 * scenarios compose.
 *
 * @param topic           the topic the load goes through
 * @param partitions      its partitions
 * @param bridgeThreads   the bridge's server.workerThreads; 0: Netty's default
 * @param bridgeTransport the bridge's server.transport
 * @param bridgeKafka     extra kafka.properties of the bridge
 * @param bridgeJvm       the bridge JVM's options
 * @param pin             pin the bridge to the last CPU and the rest to the others
 * @param kafka           a running Kafka's bootstrap servers; null: start one for the run ({@link BenchKafka})
 */
public record OwnBridge(String topic, int partitions, int bridgeThreads, String bridgeTransport, Map<String, String> bridgeKafka,
                        List<String> bridgeJvm, boolean pin, String kafka) {

    public OwnBridge {
        bridgeKafka = Map.copyOf(bridgeKafka);
        bridgeJvm = List.copyOf(bridgeJvm);
    }

    /** What {@code bench bridge} starts by default. */
    public static OwnBridge defaults() {
        return new OwnBridge("bench", 4, 0, "auto", Map.of(), List.of("-Xmx2g", "-XX:+UseParallelGC"), false, null);
    }

    public OwnBridge withPartitions(int count) {
        return new OwnBridge(topic, count, bridgeThreads, bridgeTransport, bridgeKafka, bridgeJvm, pin, kafka);
    }

    /** The same bridge on another topic: a sweep's points each get a fresh one, even on a running Kafka. */
    public OwnBridge withTopic(String name) {
        return new OwnBridge(name, partitions, bridgeThreads, bridgeTransport, bridgeKafka, bridgeJvm, pin, kafka);
    }

    /** Starts Kafka and the bridge, runs the settings against them, stops both. */
    public BenchResult run(BenchSettings settings, PrintStream out) throws Exception {
        return run(settings, BesideTraffic.NONE, out);
    }

    /** The same, with {@code beside} running beside the fan-out against the same bridge and in the same window. */
    public BenchResult run(BenchSettings settings, BesideTraffic beside, PrintStream out) throws Exception {
        return withBridge(settings.shape(), out, target -> new BridgeBenchmark(settings,
                settings.transport() == BenchTransport.MQTT ? target.at(URI.create(target.local().mqttUrl())) : target, out, beside).run());
    }

    /** Starts Kafka and the bridge, runs only publishing clients against them (warm-up, then the window), stops both. */
    public PublishResult publish(PublishSettings settings, Duration warmup, Duration duration, PrintStream out) throws Exception {
        return withBridge(ValueShape.RAW, out, target -> new PublishBenchmark(new PublisherLoad(settings), target, warmup, duration, out).run());
    }

    private interface Body<R> {
        R run(BridgeBenchmark.Target target) throws Exception;
    }

    private <R> R withBridge(ValueShape shape, PrintStream out, Body<R> body) throws Exception {
        CpuPinning pinning = pin ? CpuPinning.forThisMachine() : null;
        String benchToken = randomToken();
        try (BenchKafka local = BenchKafka.open(kafka)) {
            createTopic(local.bootstrapServers(), topic, partitions);
            try (LocalBridge child = LocalBridge.start(local.bootstrapServers(), topic, shape, benchToken, bridgeThreads, bridgeTransport, bridgeKafka,
                    bridgeJvm)) {
                out.printf("%s; bridge pid %d at %s (bench-only token authenticator); bridge CPU and RSS from /proc/%d%n",
                        local.describe(), child.pid(), child.url(), child.pid());
                if (pinning != null) {
                    pinning.pinBridge(child.pid(), out);
                    if (local.ownPid().isPresent()) {
                        pinning.pinOther(local.ownPid().getAsLong(), "Kafka broker", out);
                    }
                    pinning.pinOther(ProcessHandle.current().pid(), "load generator (this process)", out);
                }
                return body.run(new BridgeBenchmark.Target(local.bootstrapServers(), topic, URI.create(child.url()), benchToken, child,
                        OptionalLong.of(child.pid())));
            }
        }
    }

    /** A fresh secret per run: the bench's child bridges accept nothing else ({@link BenchOnlyAuthenticator}). */
    static String randomToken() {
        byte[] secret = new byte[24];
        new SecureRandom().nextBytes(secret);
        return "bench-" + HexFormat.of().formatHex(secret);
    }

    static void createTopic(String bootstrap, String topic, int partitions) throws Exception {
        try {
            BenchTopics.create(bootstrap, topic, partitions);
        } catch (ExecutionException e) {
            if (!(e.getCause() instanceof TopicExistsException)) {
                throw e;
            }
        }
    }
}
