package io.sluice.bench.bridge.scenario;

import java.io.PrintStream;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.Callable;

import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

import io.sluice.bench.bridge.BenchResult;
import io.sluice.bench.bridge.BenchSettings;
import io.sluice.bench.bridge.BenchTransport;
import io.sluice.bench.bridge.FdLimit;
import io.sluice.bench.bridge.OwnBridge;
import io.sluice.bench.bridge.PublishResult;
import io.sluice.bench.bridge.PublishSettings;
import io.sluice.bench.bridge.PublisherLoad;
import io.sluice.cli.ScenarioOptions;
import io.sluice.cli.UsageException;
import io.sluice.results.scenario.Seed;
import io.sluice.testkit.bench.ScenarioReport;

/**
 * {@code bench scenario migratorydata-gaming}: MigratoryData's gaming run (seed 001): every gamer receives a 2 KiB
 * message every 5 s and, in the same run, as many gamers each publish a 2 KiB message into Kafka every 5 s. The
 * fan-out is {@code bench bridge}'s ({@link OwnBridge#run(BenchSettings, io.sluice.bench.bridge.BesideTraffic, PrintStream)});
 * the publishing gamers are {@link PublisherLoad} beside it, in the same window, against the same bridge.
 */
@Command(name = "migratorydata-gaming", description = {"MigratoryData gaming (seed 001): 2 KiB to every gamer every 5 s, and as many gamers publishing 2 KiB into Kafka every 5 s.",
        "Delivery and publish latency, every acked publish in Kafka exactly once, bridge CPU per million messages."})
public final class MigratoryDataGamingScenario implements Callable<Integer> {

    static final String NAME = "migratorydata-gaming";
    static final Seed SEED = new Seed("001_308ee945f3377e89.txt", "MigratoryData Kafka Edition: one million gamers",
            "Published: 1,000,000 gamers on one 32-vCPU c6id.8xlarge, Kafka, Benchpub and Benchsub on three more machines, "
                    + "10 Gbps network, each gamer its own subject. Here: 2 cores shared by Kafka, the bridge and both loads, loopback; "
                    + "9,000 gamers (each gamer is two connections here, one receiving and one publishing, so 18,000 of the "
                    + "open-file limit of 20,000 per process); each receiving gamer subscribes to a random one of as many endpoints "
                    + "(some endpoints have two gamers, some none); publishes are written with acks=all.");

    @Mixin
    ScenarioOptions options;

    @Mixin
    BridgeLoadOptions load;

    @Option(names = "--gamers", paramLabel = "N", defaultValue = "9000",
            description = "Gamers: N receiving connections and N publishing ones (default: ${DEFAULT-VALUE}).")
    int gamers;

    @Option(names = "--every", paramLabel = "S", defaultValue = "5", description = "Seconds between two messages to, and from, each gamer (default: ${DEFAULT-VALUE}).")
    double every;

    @Option(names = "--payload", paramLabel = "BYTES", defaultValue = "2048", description = "Message size both ways (default: ${DEFAULT-VALUE}).")
    int payload;

    @Option(names = "--transport", paramLabel = "NAME", defaultValue = "websocket",
            description = "How the clients talk to the bridge: websocket, or mqtt (MQTT 3.1.1: publishes at QoS 1, PUBACKed once Kafka has them; deliveries at QoS 0) (default: ${DEFAULT-VALUE}).")
    String transport;

    @Option(names = "--warmup", paramLabel = "S", defaultValue = "20", description = "Warm-up seconds (default: ${DEFAULT-VALUE}).")
    int warmup;

    @Option(names = "--duration", paramLabel = "S", defaultValue = "90", description = "Measured seconds (default: ${DEFAULT-VALUE}).")
    int duration;

    private final PrintStream out;

    public MigratoryDataGamingScenario() {
        this(System.out);
    }

    MigratoryDataGamingScenario(PrintStream out) {
        this.out = out;
    }

    @Override
    public Integer call() throws Exception {
        if (!(every > 0)) {
            throw new UsageException("--every must be above 0");
        }
        double rate = 1 / every;
        BenchTransport over = ScenarioTransport.parse(transport);
        BenchSettings fanOut = new BenchSettings(gamers, gamers, rate, payload, Duration.ofSeconds(warmup), Duration.ofSeconds(duration),
                load.connectRate, load.perAddress, load.clientThreads, 1).over(over);
        PublisherLoad publishing = new PublisherLoad(new PublishSettings(gamers, rate, payload, load.connectRate, load.perAddress, load.clientThreads, 2,
                over));
        String fdProblem = FdLimit.problem(2 * gamers);
        if (fdProblem != null) {
            throw new UsageException("--gamers %,d are %,d connections: ".formatted(gamers, 2 * gamers) + fdProblem);
        }
        ScenarioReport report = new ScenarioReport(NAME, SEED, options, out);
        report.begin();
        out.println("sluice bench scenario " + NAME + ": receiving " + fanOut + "; publishing " + publishing.settings());
        BenchResult delivery = load.ownBridge()
                .run(fanOut, publishing, out);
        PublishResult publish = publishing.result();
        report.row(row(delivery, publish));
        report.detail("delivery", delivery);
        report.detail("publish", publish);
        printSummary(delivery, publish, out);
        report.finish();
        return publish.exactlyOnce() && publish.acked() > 0 && delivery.messagesDelivered() > 0 ? 0 : 1;
    }

    /** Bridge CPU seconds over the window per million messages it handled both ways: one figure, as both ran at once. */
    static double cpuPerMillionBothWays(BenchResult delivery, PublishResult publish) {
        long messages = delivery.messagesDelivered() + publish.acked();
        return messages == 0 ? Double.NaN : delivery.bridgeCpuSeconds() / (messages / 1e6);
    }

    static Map<String, String> row(BenchResult d, PublishResult p) {
        Map<String, String> row = new LinkedHashMap<>();
        row.put("Gamers", "%,d receiving + %,d publishing".formatted(d.connectionsSubscribed(), p.clientsConnected()));
        row.put("Payload", d.payloadBytes() + " B");
        row.put("Delivered", "%,.0f msgs/s".formatted(d.msgsPerSecondOut()));
        row.put("Delivery mean (sd) / p99 / max", "%.2f (%.2f) / %.2f / %.1f ms".formatted(d.latencyMeanMs(), d.latencyStdDevMs(), d.latencyP99Ms(), d.latencyMaxMs()));
        row.put("Published (acked)", "%,.0f msgs/s".formatted(p.publishesPerSecond()));
        row.put("Publish → ack mean / p50 / p99 / max", KafkoramaPublishScenario.latency(p.ackLatency()));
        row.put("Publish → Kafka consumer mean / p50 / p99 / max", KafkoramaPublishScenario.latency(p.kafkaLatency()));
        row.put("Acked / in Kafka once / lost / duplicated", "%,d / %,d / %,d / %,d".formatted(p.ackedInAll(), p.inKafka(), p.lost(), p.duplicates()));
        row.put("Bridge CPU", "%.2f cores; %.1f s per million delivered + published".formatted(d.bridgeCores(), cpuPerMillionBothWays(d, p)));
        row.put("Bridge RSS", "%.0f MiB".formatted(Math.max(d.rssEndBytes(), d.rssWithConnectionsBytes()) / 1048576.0));
        return row;
    }

    private static void printSummary(BenchResult d, PublishResult p, PrintStream out) {
        out.println();
        out.println("| Metric | Value |");
        out.println("|---|---|");
        out.printf("| Number of concurrent WebSockets | %,d (%,d receiving, %,d publishing; %,d failed) |%n", d.connectionsSubscribed() + p.clientsConnected(),
                d.connectionsSubscribed(), p.clientsConnected(), d.connectFailures() + p.connectFailures());
        out.printf("| Number of subscribed subjects | %,d endpoints |%n", d.endpoints());
        out.printf("| Number of messages per client | 1 message every %.3g seconds, each way |%n", 1 / d.ratePerEndpoint());
        out.printf("| Payload of each message | %d bytes |%n", d.payloadBytes());
        out.printf("| Total outgoing messages throughput | %,.0f messages/s (%,.0f expected) |%n", d.msgsPerSecondOut(), d.expectedMsgsPerSecondOut());
        out.printf("| Total published messages throughput (acked) | %,.0f messages/s (%,.0f expected) |%n", p.publishesPerSecond(),
                p.clients() * p.ratePerClient());
        out.printf("| Mean latency | %.2f ms |%n", d.latencyMeanMs());
        out.printf("| Standard deviation for latency | %.2f ms |%n", d.latencyStdDevMs());
        out.printf("| 99th percentile latency | %.2f ms |%n", d.latencyP99Ms());
        out.printf("| Maximum latency | %.1f ms |%n", d.latencyMaxMs());
        out.printf("| Publish → ack latency mean / p50 / p99 / max | %s |%n", KafkoramaPublishScenario.latency(p.ackLatency()));
        out.printf("| Publish → Kafka consumer latency mean / p50 / p99 / max | %s |%n", KafkoramaPublishScenario.latency(p.kafkaLatency()));
        out.printf("| Every acked publish in Kafka exactly once | %s |%n", p.exactlyOnce() ? "yes (%,d)".formatted(p.inKafka())
                : "NO: %,d lost, %,d duplicated, %,d written without an ack, %,d unanswered".formatted(p.lost(), p.duplicates(), p.writtenNotAcked(), p.sentNotAnswered()));
        out.printf("| Memory utilization | bridge RSS %.0f MiB |%n", Math.max(d.rssEndBytes(), d.rssWithConnectionsBytes()) / 1048576.0);
        out.printf("| CPU utilization | bridge %.2f cores of %d; %.1f s per million delivered + published (%.1f per million delivered alone, "
                        + "%.1f per million published alone: each the whole CPU over one direction's count) |%n",
                d.bridgeCores(), Runtime.getRuntime().availableProcessors(), cpuPerMillionBothWays(d, p), d.bridgeCpuSecondsPerMillion(),
                p.acked() == 0 ? Double.NaN : d.bridgeCpuSeconds() / (p.acked() / 1e6));
        out.printf("| Outgoing network utilization | %.1f MB/s (loopback) |%n", d.mbPerSecondOut());
        if (d.firstProblem() != null || p.firstProblem() != null) {
            out.println("first problem: " + (d.firstProblem() != null ? d.firstProblem() : p.firstProblem()));
        }
    }
}
