package io.sluice.bench.bridge.scenario;

import java.io.PrintStream;
import java.time.Duration;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;

import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

import io.sluice.bench.bridge.BridgeFailover;
import io.sluice.bench.bridge.FailoverResult;
import io.sluice.bench.bridge.FailoverSettings;
import io.sluice.bench.bridge.ReconnectBackoff;
import io.sluice.cli.KafkaOption;
import io.sluice.cli.ScenarioOptions;
import io.sluice.results.scenario.Seed;
import io.sluice.testkit.bench.ScenarioReport;

/**
 * {@code sluice bench scenario bridge-failover}: the seeds scale out by adding nodes (Kafkorama seed 000's four-node
 * cluster, MigratoryData seed 001's "N instances"), and Kafkorama says its clients reconnect to another node and get
 * what they missed when one fails. Here: N bridge nodes behind a round-robin front, one killed under load, and the
 * reconnect storm measured ({@link BridgeFailover}). One row per run.
 */
@Command(name = "bridge-failover", description = {"Several bridge nodes behind a round-robin TCP front, one killed under load: "
        + "time until its clients are subscribed again, recovery exactness against the topic, the survivors' CPU in the storm, latency before and after.",
        "Answers the seeds' multi-node claims (Kafkorama seed 000, MigratoryData seed 001)."})
public final class BridgeFailoverScenario implements Callable<Integer> {

    static final String NAME = "bridge-failover";

    static final Seed SEED = new Seed("000_c41e2132691fbf4a.txt, 001_308ee945f3377e89.txt",
            "Kafkorama (seed 000) four-node cluster and failover claim; MigratoryData gaming (seed 001) N-instance cluster",
            "No seed publishes a failover measurement: Kafkorama describes reconnection to another node with recovery of missed messages "
                    + "from the cache (no figures), and measures its 4-node cluster on four 8-vCPU EC2 machines with 1,000,000 clients; "
                    + "MigratoryData claims linear scaling with N instances. Here every node, Kafka, the front and the clients share 2 cores "
                    + "over loopback, with a few thousand clients (3 descriptors each in the load generator: its socket and the front's two, "
                    + "under the open-file limit of 20,000), and the front is a plain round-robin TCP relay rather than a load balancer.");

    @Mixin
    ScenarioOptions options;

    @Mixin
    KafkaOption kafka;

    @Option(names = "--nodes", paramLabel = "N", defaultValue = "3", description = "Bridge nodes, each a child JVM (default: ${DEFAULT-VALUE}).")
    int nodes;

    @Option(names = "--clients", paramLabel = "C", defaultValue = "3000",
            description = "Clients, each on one random endpoint, through the front (default: ${DEFAULT-VALUE}; at most ~6,300 under 20,000 open files).")
    int clients;

    @Option(names = "--endpoints", paramLabel = "K", defaultValue = "100", description = "Endpoints (keys) of the topic (default: ${DEFAULT-VALUE}).")
    int endpoints;

    @Option(names = "--partitions", paramLabel = "N", defaultValue = "4", description = "Partitions of the topic (default: ${DEFAULT-VALUE}).")
    int partitions;

    @Option(names = "--rate", paramLabel = "R", defaultValue = "2",
            description = "Messages per second per endpoint; each client receives R a second (default: ${DEFAULT-VALUE}).")
    double rate;

    @Option(names = "--payload", paramLabel = "BYTES", defaultValue = "256", description = "Message payload size (default: ${DEFAULT-VALUE}).")
    int payload;

    @Option(names = "--warmup", paramLabel = "S", defaultValue = "10", description = "Traffic before the first measured window (default: ${DEFAULT-VALUE}).")
    int warmup;

    @Option(names = "--window", paramLabel = "S", defaultValue = "15",
            description = "Each measured window: before the kill, the storm after it, and after that (default: ${DEFAULT-VALUE}).")
    int window;

    @Option(names = "--kill-mode", paramLabel = "MODE", defaultValue = "kill",
            description = "kill (SIGKILL: the crash) or term (SIGTERM: a graceful stop, clients closed with 1001) (default: ${DEFAULT-VALUE}).")
    String killMode;

    @Option(names = "--kill-node", paramLabel = "I", defaultValue = "1", description = "Which node is stopped, 1..N (default: ${DEFAULT-VALUE}).")
    int killNode;

    @Option(names = "--reconnect-first-ms", paramLabel = "MS", defaultValue = "1000",
            description = "A client's first reconnect comes at a random moment within MS (default: ${DEFAULT-VALUE}).")
    long reconnectFirst;

    @Option(names = "--reconnect-max-ms", paramLabel = "MS", defaultValue = "10000",
            description = "Later reconnects back off exponentially (MS·2^(n-2) to twice that), at most MS (default: ${DEFAULT-VALUE}).")
    long reconnectMax;

    @Option(names = "--connect-rate", paramLabel = "N", defaultValue = "500", description = "New connections per second at the start (default: ${DEFAULT-VALUE}).")
    int connectRate;

    @Option(names = "--client-threads", paramLabel = "N", defaultValue = "2", description = "Client event-loop threads (default: ${DEFAULT-VALUE}).")
    int clientThreads;

    @Option(names = "--settle", paramLabel = "S", defaultValue = "60",
            description = "Wait at most S for the clients to connect, for the killed node's clients to subscribe again, and to catch up at the end (default: ${DEFAULT-VALUE}).")
    int settle;

    @Option(names = "--bridge-jvm", paramLabel = "OPTIONS", defaultValue = "-Xmx512m -XX:+UseParallelGC",
            description = "JVM options of each node (default: ${DEFAULT-VALUE}).")
    String bridgeJvm;

    @Option(names = "--bridge-kafka", paramLabel = "KEY=VALUE", description = "A kafka.properties entry of every node (repeatable), e.g. fetch.max.wait.ms=5.")
    Map<String, String> bridgeKafka = new LinkedHashMap<>();

    @Option(names = "--seed", paramLabel = "N", defaultValue = "1", description = "Seed for the clients' endpoints and the backoff jitter (default: ${DEFAULT-VALUE}).")
    long seed;

    private final PrintStream out;

    public BridgeFailoverScenario() {
        this(System.out);
    }

    BridgeFailoverScenario(PrintStream out) {
        this.out = out;
    }

    @Override
    public Integer call() throws Exception {
        FailoverSettings settings = new FailoverSettings(nodes, clients, endpoints, partitions, rate, payload, Duration.ofSeconds(warmup),
                Duration.ofSeconds(window), FailoverSettings.Stop.parse(killMode), killNode, new ReconnectBackoff(reconnectFirst, reconnectMax),
                connectRate, clientThreads, Duration.ofSeconds(settle), Arrays.asList(bridgeJvm.trim().split("\\s+")), bridgeKafka, seed);
        ScenarioReport report = new ScenarioReport(NAME, SEED, options, out);
        report.begin();
        FailoverResult result = new BridgeFailover(settings, kafka.given(), out).run();
        report.row(row(result));
        report.detail("settings", settings.toString());
        report.detail("result", result);
        summary(result);
        report.finish();
        return result.exact() && result.resubscribed() == result.stoppedNodeClients() ? 0 : 1;
    }

    /** The row: the columns of the table under {@code <!-- scenario: bridge-failover -->}, in order. */
    static Map<String, String> row(FailoverResult r) {
        Map<String, String> row = new LinkedHashMap<>();
        row.put("Nodes", Integer.toString(r.nodes()));
        row.put("Clients", "%,d".formatted(r.clients()));
        row.put("Rate (msgs/s in → out)", "%,.0f → %,.0f".formatted(r.endpoints() * r.ratePerEndpoint(), r.clients() * r.ratePerEndpoint()));
        row.put("Killed node's clients", "%,d (%s)".formatted(r.stoppedNodeClients(), r.stop().equals("kill") ? "SIGKILL" : "SIGTERM"));
        row.put("All resubscribed after (s)", r.resubscribed() == r.stoppedNodeClients() ? seconds(r.allResubscribedSeconds())
                : "no: %,d of %,d".formatted(r.resubscribed(), r.stoppedNodeClients()));
        row.put("Resubscribed p50 / p99 (s)", seconds(r.resubscribeP50Seconds()) + " / " + seconds(r.resubscribeP99Seconds()));
        row.put("Exact", exact(r));
        row.put("Survivors' CPU storm vs before (CPU-s)", "%.2f vs %.2f".formatted(r.survivorsCpuStormSeconds(), r.survivorsCpuBeforeSeconds()));
        row.put("Latency p99 before → storm → after (ms)", "%.1f → %.1f → %.1f".formatted(r.latencyP99BeforeMs(), r.latencyP99StormMs(), r.latencyP99AfterMs()));
        return row;
    }

    static String exact(FailoverResult r) {
        String counts = "%,d of %,d clients exact, %,d messages; %,d gap events".formatted(r.clientsExact(), r.clientsChecked(), r.messagesDelivered(), r.gapEvents());
        if (r.exact()) {
            return "yes (" + counts + ")";
        }
        return "no (%s; %,d with gaps, %,d missing; %,d with duplicates, %,d duplicated; %,d out of order; %,d with foreign records)".formatted(counts,
                r.clientsWithGaps(), r.missingMessages(), r.clientsWithDuplicates(), r.duplicateMessages(), r.clientsOutOfOrder(), r.clientsWithUnexpected());
    }

    private static String seconds(double s) {
        return Double.isNaN(s) ? "n/a" : "%.2f".formatted(s);
    }

    private void summary(FailoverResult r) {
        out.println();
        out.printf("== bridge-failover: %d nodes, %,d clients, %s of %s ==%n", r.nodes(), r.clients(), r.stop().equals("kill") ? "SIGKILL" : "SIGTERM", r.stoppedNode());
        List.of(
                "| Clients per node at the kill | " + r.perNodeAtStop(),
                "| Killed node's clients | %,d, subscribed again: %,d".formatted(r.stoppedNodeClients(), r.resubscribed()),
                "| Kill → all subscribed again | " + seconds(r.allResubscribedSeconds()) + " s",
                "| Kill → subscribed again, per client p50 / p99 / max | %s / %s / %s s".formatted(seconds(r.resubscribeP50Seconds()),
                        seconds(r.resubscribeP99Seconds()), seconds(r.resubscribeMaxSeconds())),
                "| Disconnect → subscribed again (backoff included) p50 / p99 / max | %s / %s / %s s".formatted(seconds(r.disconnectToSubscribedP50Seconds()),
                        seconds(r.disconnectToSubscribedP99Seconds()), seconds(r.disconnectToSubscribedMaxSeconds())),
                "| Reconnect attempts / failed connects / server closes | %,d / %,d / %,d".formatted(r.reconnects(), r.connectFailures(), r.serverCloses()),
                "| Recovery exact | " + exact(r),
                "| Clients caught up at the check | %,d of %,d".formatted(r.clientsCaughtUp(), r.clients()),
                "| Messages produced / delivered | %,d / %,d".formatted(r.messagesProduced(), r.messagesDelivered()),
                "| Survivors' CPU, %.0f s storm vs %.0f s before | %.2f vs %.2f CPU-s (killed node before: %.2f)".formatted(r.windowSeconds(), r.windowSeconds(),
                        r.survivorsCpuStormSeconds(), r.survivorsCpuBeforeSeconds(), r.stoppedNodeCpuBeforeSeconds()),
                "| Latency p50 / p99 before | %.2f / %.2f ms".formatted(r.latencyP50BeforeMs(), r.latencyP99BeforeMs()),
                "| Latency p99 / max in the storm | %.2f / %.2f ms".formatted(r.latencyP99StormMs(), r.latencyMaxStormMs()),
                "| Latency p99 after | %.2f ms".formatted(r.latencyP99AfterMs()),
                "| Problems | %,d%s".formatted(r.problems(), r.firstProblem() == null ? "" : "; first: " + r.firstProblem()))
                .forEach(line -> out.println(line + " |"));
    }
}
