package io.sluice.bench.bridge;

import java.io.PrintStream;
import java.net.URI;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.OptionalLong;
import java.util.concurrent.Callable;

import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

import io.sluice.cli.UsageException;
import io.sluice.testkit.CpuSampler;
import io.sluice.testkit.RunEnvironment;

/**
 * {@code sluice bench bridge}: benchpub and benchsub against a bridge. By default the bench starts its own Kafka and a
 * bridge, each in a child JVM, so the bridge's CPU and memory are its own; {@code --bridge URL} measures a running one.
 */
@Command(name = "bridge", description = {"WebSocket bridge fan-out over WebSocket or SSE: latency, CPU per million messages, memory per connection.",
        "Starts its own Kafka and bridge (each in a child JVM) unless --bridge names a running one."})
public final class BenchBridgeCommand implements Callable<Integer> {

    @Option(names = "--connections", paramLabel = "N", defaultValue = "1000", description = "Subscriber connections (default: ${DEFAULT-VALUE}).")
    int connections;

    @Option(names = "--transport", paramLabel = "NAME", defaultValue = "websocket",
            description = "How subscribers read: websocket (a WebSocket each), sse (a GET {path}/sse event stream each) or mqtt (an MQTT 3.1.1 connection each, QoS 0) (default: ${DEFAULT-VALUE}).")
    String transport;

    @Option(names = "--endpoints", paramLabel = "K", defaultValue = "100",
            description = "Endpoints the connections subscribe to, evenly (default: ${DEFAULT-VALUE}).")
    int endpoints;

    @Option(names = "--rate", paramLabel = "R", defaultValue = "1", description = "Messages per second per endpoint; 0: no traffic (default: ${DEFAULT-VALUE}).")
    double rate;

    @Option(names = "--idle", description = "No traffic: the same as --rate 0, for memory per idle connection.")
    boolean idle;

    @Option(names = "--bridge-transport", paramLabel = "NAME", defaultValue = "auto",
            description = "server.transport of the bridge the bench starts: auto, io_uring, epoll or nio (default: ${DEFAULT-VALUE}).")
    String bridgeTransport;

    @Option(names = "--bridge-kafka", paramLabel = "KEY=VALUE",
            description = "A kafka.properties entry of the bridge the bench starts (repeatable), e.g. fetch.max.wait.ms=5.")
    Map<String, String> bridgeKafka = new LinkedHashMap<>();

    @Option(names = "--pin", description = "Pin the bridge to the last CPU and Kafka and the load to the others (taskset), "
            + "so latency is the bridge's rather than the shared machine's queueing. Only with the bench's own bridge.")
    boolean pin;

    @Option(names = "--payload", paramLabel = "BYTES", defaultValue = "512", description = "Message payload size (default: ${DEFAULT-VALUE}).")
    int payload;

    @Option(names = "--value", paramLabel = "SHAPE", defaultValue = "raw",
            description = {"What records carry: raw (the stamp and --payload bytes of filler), json (Lightstreamer scenario 3's "
                    + "~1.2 KB document, one text and one number changing per update) or avro (the same as bare Avro, which the "
                    + "bridge decodes with a local schema) (default: ${DEFAULT-VALUE})."})
    String value;

    @Option(names = "--fields", paramLabel = "POINTERS", split = ",",
            description = "With json or avro values: the field list every subscription asks for, e.g. /timestamp,/firstNumber (must keep /timestamp).")
    List<String> fields = new ArrayList<>();

    @Option(names = "--delta", description = "With json or avro values: subscriptions ask for JSON Patch deltas.")
    boolean delta;

    @Option(names = "--duration", paramLabel = "S", defaultValue = "30", description = "Measured seconds (default: ${DEFAULT-VALUE}).")
    int duration;

    @Option(names = "--warmup", paramLabel = "S", defaultValue = "10", description = "Warm-up seconds, none without traffic (default: ${DEFAULT-VALUE}).")
    int warmup;

    @Option(names = "--connect-rate", paramLabel = "N", defaultValue = "2000", description = "New connections per second (default: ${DEFAULT-VALUE}).")
    int connectRate;

    @Option(names = "--per-address", paramLabel = "N", defaultValue = "10000",
            description = "Connections per local source address, below the ephemeral port range (default: ${DEFAULT-VALUE}).")
    int perAddress;

    @Option(names = "--client-threads", paramLabel = "N", defaultValue = "2", description = "Client event-loop threads (default: ${DEFAULT-VALUE}).")
    int clientThreads;

    @Option(names = "--seed", paramLabel = "N", defaultValue = "1", description = "Seed for the subscription plan (default: ${DEFAULT-VALUE}).")
    int seed;

    @Option(names = "--partitions", paramLabel = "N", defaultValue = "4", description = "Partitions of the topic the bench creates (default: ${DEFAULT-VALUE}).")
    int partitions;

    @Option(names = "--bridge-jvm", paramLabel = "OPTIONS", defaultValue = "-Xmx2g -XX:+UseParallelGC",
            description = "JVM options of the bridge the bench starts (default: ${DEFAULT-VALUE}).")
    String bridgeJvm;

    @Option(names = "--bridge-threads", paramLabel = "N", defaultValue = "0",
            description = "server.workerThreads of the bridge the bench starts; 0: Netty's default (default: ${DEFAULT-VALUE}).")
    int bridgeThreads;

    @Option(names = "--json", paramLabel = "FILE", description = "Also write the result as JSON.")
    Path json;

    @Option(names = "--out", paramLabel = "DIR", description = "Add the run as a point for 'sluice size bridge --runs DIR'.")
    Path outDir;

    @Option(names = "--scenario", paramLabel = "NAME", description = "The point's scenario name (default: fanout-PAYLOADb).")
    String scenario;

    @Option(names = "--bridge", paramLabel = "URL", description = "Measure a running bridge: ws://HOST:PORT/PATH (wss:// is not supported); "
            + "with --transport sse the streams are GET http://HOST:PORT/PATH/sse.")
    URI bridge;

    @Option(names = "--kafka", paramLabel = "BOOTSTRAP", defaultValue = "${env:KAFKA_BOOTSTRAP}",
            description = "With --bridge: the bridge's Kafka (required). Without: a running Kafka for the bench's own bridge, whose topic "
                    + "the run creates and leaves (default: $KAFKA_BOOTSTRAP when set, else a broker of the run's own).")
    String kafka;

    @Option(names = "--token", paramLabel = "JWT", description = "With --bridge: the token the connections present.")
    String token;

    @Option(names = "--topic", paramLabel = "NAME", defaultValue = "bench", description = "The topic the load goes through (default: ${DEFAULT-VALUE}).")
    String topic;

    @Option(names = "--bridge-pid", paramLabel = "PID", description = "With --bridge: the bridge's process, for CPU and memory figures from /proc.")
    Long bridgePid;

    private final PrintStream out;

    public BenchBridgeCommand() {
        this(System.out);
    }

    BenchBridgeCommand(PrintStream out) {
        this.out = out;
    }

    @Override
    public Integer call() throws Exception {
        double messageRate = idle ? 0 : rate;
        BenchSettings settings = new BenchSettings(connections, endpoints, messageRate, payload, Duration.ofSeconds(messageRate == 0 ? 0 : warmup),
                Duration.ofSeconds(duration), connectRate, perAddress, clientThreads, seed, shape(), fields, delta, BenchTransport.parse(transport));
        String fdProblem = FdLimit.problem(settings.connections());
        if (fdProblem != null) {
            throw new UsageException(fdProblem);
        }
        out.printf("sluice bench bridge: %s; %d cores, open-file limit %s, load average %s%n", settings,
                Runtime.getRuntime().availableProcessors(), FdLimit.soft().isPresent() ? "%,d".formatted(FdLimit.soft().getAsLong()) : "unknown",
                RunEnvironment.loadAverages());
        BenchResult result = bridge != null ? againstRunningBridge(settings) : againstOwnBridge(settings);
        BenchReport.print(result, out);
        if (json != null) {
            BenchReport.writeJson(result, json);
            out.println("wrote " + json);
        }
        if (outDir != null) {
            String name = scenario != null ? scenario
                    : (settings.shape().structured() ? value.toLowerCase(Locale.ROOT) + "-structured" : "fanout-" + settings.payloadBytes() + "b")
                    // SSE and MQTT points are other curves: they must not be fitted together with the WebSocket ones.
                    + (settings.transport() == BenchTransport.WEBSOCKET ? "" : "-" + settings.transport().label());
            Path file = SizingPoints.append(outDir, name, result,
                    Runtime.getRuntime().availableProcessors(), CpuSampler.cgroupCpuLimitCores());
            out.println("added this run as a point to " + file + " (for ./sluice size bridge --runs " + outDir + ")");
        }
        return 0;
    }

    private ValueShape shape() {
        try {
            return ValueShape.valueOf(value.toUpperCase(Locale.ROOT));
        } catch (IllegalArgumentException e) {
            throw new UsageException("--value takes raw, json or avro, not " + value);
        }
    }

    private BenchResult againstOwnBridge(BenchSettings settings) throws Exception {
        if (token != null || bridgePid != null) {
            throw new UsageException((token != null ? "--token" : "--bridge-pid") + " goes with --bridge (a running bridge)");
        }
        return new OwnBridge(topic, partitions, bridgeThreads, bridgeTransport, bridgeKafka, List.of(bridgeJvm.trim().split("\\s+")), pin,
                kafka == null || kafka.isBlank() ? null : kafka.trim()).run(settings, out);
    }

    private BenchResult againstRunningBridge(BenchSettings settings) throws Exception {
        if (pin) {
            throw new UsageException("--pin goes with the bench's own bridge: pin a running bridge yourself (taskset -a -c -p CPUS PID)");
        }
        // With SSE the streams are plain HTTP under the same path; http:// says so more plainly, and either is accepted.
        boolean plain = settings.transport() == BenchTransport.MQTT ? "mqtt".equals(bridge.getScheme())
                : "ws".equals(bridge.getScheme()) || settings.transport() == BenchTransport.SSE && "http".equals(bridge.getScheme());
        if (!plain || bridge.getPort() < 0) {
            throw new UsageException("--bridge takes " + (settings.transport() == BenchTransport.MQTT ? "mqtt://HOST:PORT (the MQTT listener)"
                    : "ws://HOST:PORT/PATH" + (settings.transport() == BenchTransport.SSE ? " or http://HOST:PORT/PATH" : "")) + " (TLS is not supported by the bench)");
        }
        if (kafka == null || kafka.isBlank() || token == null) {
            throw new UsageException((kafka == null || kafka.isBlank() ? "--kafka" : "--token") + " is required with --bridge");
        }
        OwnBridge.createTopic(kafka, topic, partitions);
        OptionalLong pid = bridgePid != null ? OptionalLong.of(bridgePid) : OptionalLong.empty();
        out.printf("bridge at %s reading %s from %s; %s%n", bridge, topic, kafka,
                pid.isPresent() ? "CPU and RSS from /proc/" + pid.getAsLong() : "no --bridge-pid: no CPU or memory figures");
        return new BridgeBenchmark(settings, new BridgeBenchmark.Target(kafka, topic, bridge, token, null, pid), out).run();
    }
}
