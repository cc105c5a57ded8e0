package io.sluice.app.bench.bridge;

import java.io.PrintStream;
import java.net.URI;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.HexFormat;
import java.util.List;
import java.util.OptionalLong;
import java.util.Properties;
import java.util.concurrent.ExecutionException;

import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.common.errors.TopicExistsException;

import io.sluice.bench.CpuSampler;
import io.sluice.app.cli.Command;
import io.sluice.app.cli.Options;
import io.sluice.app.cli.UsageException;
import io.sluice.testkit.LocalKafka;

/**
 * {@code sluice bench bridge}: benchpub and benchsub against a bridge. By default the bench starts its own Kafka and a
 * bridge, each in a child JVM, so the bridge's CPU and memory are its own; {@code --bridge URL} measures a running one.
 */
public final class BenchBridgeCommand implements Command {

    private static final String OPTIONS = "--connections N --endpoints K --rate R (msgs/s per endpoint; 0 or --idle: no traffic)"
            + " --payload BYTES [--duration 30 --warmup 10 --connect-rate 2000 --per-address 10000 --client-threads 2 --seed 1"
            + " --partitions 4 --bridge-jvm '-Xmx2g -XX:+UseParallelGC' --bridge-threads 0 (server.workerThreads) --json FILE --out DIR --scenario fanout-512b (a point for `sluice size bridge`); a running bridge: --bridge ws://HOST:PORT/ws"
            + " --kafka BOOTSTRAP --token T [--topic bench --bridge-pid PID]]";

    private final PrintStream out;

    public BenchBridgeCommand() {
        this(System.out);
    }

    BenchBridgeCommand(PrintStream out) {
        this.out = out;
    }

    @Override
    public String name() {
        return "bench bridge";
    }

    @Override
    public String summary() {
        return "WebSocket bridge fan-out: latency, CPU per million messages, memory per connection: " + OPTIONS;
    }

    @Override
    public int run(List<String> args) throws Exception {
        Options o = Options.parse(args, "connections", "endpoints", "rate", "payload", "duration", "warmup", "idle!", "connect-rate",
                "per-address", "client-threads", "seed", "partitions", "bridge-jvm", "bridge-threads", "json", "out", "scenario", "bridge", "kafka", "token", "topic", "bridge-pid");
        double rate = o.flag("idle") ? 0 : o.getDouble("rate", 1);
        BenchSettings settings = new BenchSettings(o.getInt("connections", 1_000), o.getInt("endpoints", 100), rate,
                o.getInt("payload", 512), Duration.ofSeconds(rate == 0 ? 0 : o.getInt("warmup", 10)), Duration.ofSeconds(o.getInt("duration", 30)),
                o.getInt("connect-rate", 2_000), o.getInt("per-address", 10_000), o.getInt("client-threads", 2), o.getInt("seed", 1));
        String fdProblem = FdLimit.problem(settings.connections());
        if (fdProblem != null) {
            throw new UsageException(fdProblem);
        }
        String topic = o.get("topic", "bench");
        out.printf("sluice bench bridge: %s; %d cores, open-file limit %s, load average %s%n", settings,
                Runtime.getRuntime().availableProcessors(), FdLimit.soft().isPresent() ? "%,d".formatted(FdLimit.soft().getAsLong()) : "unknown",
                BridgeBenchmark.loadAverage());
        BenchResult result;
        if (o.has("bridge")) {
            result = againstRunningBridge(o, settings, topic);
        } else {
            result = againstOwnBridge(o, settings, topic);
        }
        BenchReport.print(result, out);
        if (o.has("json")) {
            BenchReport.writeJson(result, Path.of(o.get("json", null)));
            out.println("wrote " + o.get("json", null));
        }
        if (o.has("out")) {
            Path file = SizingPoints.append(Path.of(o.get("out", null)), o.get("scenario", "fanout-" + settings.payloadBytes() + "b"), result,
                    Runtime.getRuntime().availableProcessors(), CpuSampler.cgroupCpuLimitCores());
            out.println("added this run as a point to " + file + " (for ./sluice size bridge --runs " + o.get("out", null) + ")");
        }
        return 0;
    }

    private BenchResult againstOwnBridge(Options o, BenchSettings settings, String topic) throws Exception {
        for (String external : List.of("kafka", "token", "bridge-pid")) {
            if (o.has(external)) {
                throw new UsageException("--" + external + " goes with --bridge (a running bridge)");
            }
        }
        // A fresh secret per run: the child bridge accepts nothing else.
        byte[] secret = new byte[24];
        new SecureRandom().nextBytes(secret);
        String token = "bench-" + HexFormat.of().formatHex(secret);
        try (LocalKafka kafka = LocalKafka.start(LocalKafka.Options.defaults())) {
            createTopic(kafka.bootstrapServers(), topic, o.getInt("partitions", 4));
            try (LocalBridge bridge = LocalBridge.start(kafka.bootstrapServers(), topic, token, o.getInt("bridge-threads", 0),
                    List.of(o.get("bridge-jvm", "-Xmx2g -XX:+UseParallelGC").trim().split("\\s+")))) {
                out.printf("Kafka pid %d at %s; bridge pid %d at %s (bench-only token authenticator); bridge CPU and RSS from /proc/%d%n",
                        kafka.pid(), kafka.bootstrapServers(), bridge.pid(), bridge.url(), bridge.pid());
                var target = new BridgeBenchmark.Target(kafka.bootstrapServers(), topic, URI.create(bridge.url()), token, bridge,
                        OptionalLong.of(bridge.pid()));
                return new BridgeBenchmark(settings, target, out).run();
            }
        }
    }

    private BenchResult againstRunningBridge(Options o, BenchSettings settings, String topic) throws Exception {
        URI url = URI.create(o.get("bridge", null));
        if (!"ws".equals(url.getScheme()) || url.getPort() < 0) {
            throw new UsageException("--bridge takes ws://HOST:PORT/PATH (wss:// is not supported by the bench)");
        }
        String bootstrap = o.require("kafka");
        createTopic(bootstrap, topic, o.getInt("partitions", 4));
        OptionalLong pid = o.has("bridge-pid") ? OptionalLong.of(Long.parseLong(o.get("bridge-pid", null))) : OptionalLong.empty();
        out.printf("bridge at %s reading %s from %s; %s%n", url, topic, bootstrap,
                pid.isPresent() ? "CPU and RSS from /proc/" + pid.getAsLong() : "no --bridge-pid: no CPU or memory figures");
        return new BridgeBenchmark(settings, new BridgeBenchmark.Target(bootstrap, topic, url, o.require("token"), null, pid), out).run();
    }

    private static void createTopic(String bootstrap, String topic, int partitions) throws InterruptedException, ExecutionException {
        Properties props = new Properties();
        props.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        try (Admin admin = Admin.create(props)) {
            admin.createTopics(List.of(new NewTopic(topic, partitions, (short) 1))).all().get();
        } catch (ExecutionException e) {
            if (!(e.getCause() instanceof TopicExistsException)) {
                throw e;
            }
        }
    }
}
