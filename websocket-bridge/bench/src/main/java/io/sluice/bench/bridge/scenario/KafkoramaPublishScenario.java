package io.sluice.bench.bridge.scenario;

import java.io.PrintStream;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.Callable;

import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

import io.sluice.bench.bridge.FdLimit;
import io.sluice.bench.bridge.PublishResult;
import io.sluice.bench.bridge.PublishSettings;
import io.sluice.cli.ScenarioOptions;
import io.sluice.cli.UsageException;
import io.sluice.results.scenario.Seed;
import io.sluice.testkit.bench.ScenarioReport;

/**
 * {@code bench scenario kafkorama-publish}: the reverse path Kafkorama announces (seed 000): many WebSocket clients each
 * publishing into Kafka through the bridge, with publish → ack latency, publish → record in Kafka latency, an exact
 * count (every acked publish in Kafka once) and the bridge's CPU per million published.
 */
@Command(name = "kafkorama-publish", description = {"Kafkorama (seed 000), the reverse path: WebSocket clients publishing into Kafka through the bridge.",
        "Publish -> ack and publish -> Kafka latency, every acked publish in Kafka exactly once, bridge CPU per million published."})
public final class KafkoramaPublishScenario implements Callable<Integer> {

    static final String NAME = "kafkorama-publish";
    static final Seed SEED = new Seed("000_c41e2132691fbf4a.txt", "Kafkorama: the reverse path, clients publishing into Kafka (announced)",
            "Kafkorama published no reverse-path figures; it points to MigratoryData's gaming run (1,000,000 clients each "
                    + "publishing a 2 KiB message every 5 s on a 32-vCPU c6id.8xlarge, 10 Gbps network). Here: 2 cores shared by Kafka, "
                    + "the bridge and the clients, loopback, 10,000 clients (the open-file limit of 20,000 per process), one Kafka "
                    + "broker in a child JVM, publishes written with acks=all.");

    @Mixin
    ScenarioOptions options;

    @Mixin
    BridgeLoadOptions load;

    @Option(names = "--clients", paramLabel = "N", defaultValue = "10000", description = "Publishing WebSocket clients (default: ${DEFAULT-VALUE}).")
    int clients;

    @Option(names = "--rate", paramLabel = "R", defaultValue = "1", description = "Publishes per second per client (default: ${DEFAULT-VALUE}).")
    double rate;

    @Option(names = "--payload", paramLabel = "BYTES", defaultValue = "512", description = "Published payload size: the seed's 512 B (default: ${DEFAULT-VALUE}).")
    int payload;

    @Option(names = "--transport", paramLabel = "NAME", defaultValue = "websocket",
            description = "How the clients talk to the bridge: websocket, or mqtt (MQTT 3.1.1: publishes at QoS 1, PUBACKed once Kafka has them; deliveries at QoS 0) (default: ${DEFAULT-VALUE}).")
    String transport;

    @Option(names = "--warmup", paramLabel = "S", defaultValue = "15", description = "Warm-up seconds (default: ${DEFAULT-VALUE}).")
    int warmup;

    @Option(names = "--duration", paramLabel = "S", defaultValue = "60", description = "Measured seconds (default: ${DEFAULT-VALUE}).")
    int duration;

    private final PrintStream out;

    public KafkoramaPublishScenario() {
        this(System.out);
    }

    KafkoramaPublishScenario(PrintStream out) {
        this.out = out;
    }

    @Override
    public Integer call() throws Exception {
        PublishSettings settings = new PublishSettings(clients, rate, payload, load.connectRate, load.perAddress, load.clientThreads, 1,
                ScenarioTransport.parse(transport));
        String fdProblem = FdLimit.problem(clients);
        if (fdProblem != null) {
            throw new UsageException(fdProblem.replace("--connections", "--clients"));
        }
        ScenarioReport report = new ScenarioReport(NAME, SEED, options, out);
        report.begin();
        out.println("sluice bench scenario " + NAME + ": " + settings + ", " + warmup + " s warm-up + " + duration + " s");
        PublishResult r = load.ownBridge()
                .publish(settings, Duration.ofSeconds(warmup), Duration.ofSeconds(duration), out);
        report.row(row(r));
        report.detail("publish", r);
        printSummary(r, out);
        report.finish();
        return r.exactlyOnce() && r.acked() > 0 ? 0 : 1;
    }

    /** The table's columns after Date, Commit and Load. */
    static Map<String, String> row(PublishResult r) {
        Map<String, String> row = new LinkedHashMap<>();
        row.put("Publishing clients", "%,d".formatted(r.clientsConnected()));
        row.put("Published (acked)", "%,.0f msgs/s".formatted(r.publishesPerSecond()));
        row.put("Payload", r.payloadBytes() + " B");
        row.put("Publish → ack mean / p50 / p99 / max", latency(r.ackLatency()));
        row.put("Publish → Kafka consumer mean / p50 / p99 / max", latency(r.kafkaLatency()));
        row.put("Acked / in Kafka once / lost / duplicated", "%,d / %,d / %,d / %,d".formatted(r.ackedInAll(), r.inKafka(), r.lost(), r.duplicates()));
        row.put("Bridge CPU per million published", "%.1f s (%.2f cores)".formatted(r.bridgeCpuSecondsPerMillion(), r.bridgeCores()));
        return row;
    }

    static String latency(PublishResult.Latency l) {
        return "%.2f / %.2f / %.2f / %.1f ms".formatted(l.meanMs(), l.p50Ms(), l.p99Ms(), l.maxMs());
    }

    private static void printSummary(PublishResult r, PrintStream out) {
        out.println();
        out.println("| Metric | Value |");
        out.println("|---|---|");
        out.printf("| Concurrent publishing clients | %,d (%,d failed to connect) |%n", r.clientsConnected(), r.connectFailures());
        out.printf("| Incoming throughput (acked) | %,.0f messages/s of %d B (%,.0f expected) |%n", r.publishesPerSecond(), r.payloadBytes(),
                r.clients() * r.ratePerClient());
        out.printf("| Publish → ack latency mean / p50 / p99 / max | %s |%n", latency(r.ackLatency()));
        out.printf("| Publish → Kafka consumer latency mean / p50 / p99 / max | %s |%n", latency(r.kafkaLatency()));
        out.printf("| Acked over the run / in Kafka exactly once | %,d / %,d: %s |%n", r.ackedInAll(), r.inKafka(), r.exactlyOnce() ? "exact"
                : "NOT EXACT: %,d lost, %,d duplicated, %,d written without an ack, %,d unanswered, %,d refused".formatted(r.lost(), r.duplicates(),
                        r.writtenNotAcked(), r.sentNotAnswered(), r.refused()));
        out.printf("| Bridge CPU | %.2f cores, %.1f s per million published |%n", r.bridgeCores(), r.bridgeCpuSecondsPerMillion());
        out.printf("| Bridge RSS at the end | %.0f MiB |%n", r.bridgeRssBytes() / 1048576.0);
        out.printf("| Client schedule lag at worst | %.1f ms |%n", r.publisherMaxLagMs());
        if (r.firstProblem() != null) {
            out.println("first problem: " + r.firstProblem());
        }
    }
}
