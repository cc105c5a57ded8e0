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
import io.sluice.bench.bridge.BridgeCpuSeconds;
import io.sluice.bench.bridge.FdLimit;
import io.sluice.cli.ScenarioOptions;
import io.sluice.cli.UsageException;
import io.sluice.results.scenario.Seed;
import io.sluice.sizing.projection.OnePointProjection;
import io.sluice.testkit.bench.ScenarioReport;

/**
 * {@code bench scenario kafkorama-fanout}: Kafkorama's fan-out (seed 000): endpoints each updated once a second with
 * 512 random bytes, every client subscribed to one random endpoint, scaled to this machine's open-file limit with the
 * seed's per-client rate, size and clients per endpoint (125,000 on 10,000: 12.5), then projected to the seed's
 * scales ({@link OnePointProjection}).
 */
@Command(name = "kafkorama-fanout", description = {"Kafkorama (seed 000) fan-out: 512 B once a second per endpoint, each client on one random endpoint.",
        "Run at the most connections this machine allows and projected to the seed's 125,000 - 1,000,000 clients."})
public final class KafkoramaFanoutScenario implements Callable<Integer> {

    static final String NAME = "kafkorama-fanout";
    /** The seed's smallest run: 125,000 clients on 10,000 endpoints. */
    static final double CLIENTS_PER_ENDPOINT = 12.5;
    static final long[] SEED_CLIENTS = {125_000, 250_000, 500_000, 1_000_000};
    static final Seed SEED = new Seed("000_c41e2132691fbf4a.txt", "Kafkorama Gateway: one million messages per second to one million clients",
            "Published: 125,000 - 1,000,000 clients on one c5n node of 4 - 36 vCPUs (and 4 nodes of 8), Benchsub and Kafka on other "
                    + "machines, 25+ Gbps network, 10,000 endpoints, 30 - 50 min runs. Here: 2 cores shared by Kafka, the bridge and the "
                    + "clients, loopback, 19,000 clients (the open-file limit of 20,000 per process) on 1,520 endpoints (the seed's "
                    + "12.5 clients per endpoint), minutes not half hours; the seed's scales are projected from this one point.");

    @Mixin
    ScenarioOptions options;

    @Mixin
    BridgeLoadOptions load;

    @Option(names = "--clients", paramLabel = "N", defaultValue = "19000", description = "Subscriber connections (default: ${DEFAULT-VALUE}).")
    int clients;

    @Option(names = "--endpoints", paramLabel = "K", defaultValue = "0",
            description = "Endpoints; 0: clients / " + CLIENTS_PER_ENDPOINT + ", the seed's ratio (default: ${DEFAULT-VALUE}).")
    int endpoints;

    @Option(names = "--rate", paramLabel = "R", defaultValue = "1", description = "Messages per second per endpoint (default: ${DEFAULT-VALUE}).")
    double rate;

    @Option(names = "--payload", paramLabel = "BYTES", defaultValue = "512", description = "Message payload (default: ${DEFAULT-VALUE}).")
    int payload;

    @Option(names = "--warmup", paramLabel = "S", defaultValue = "20", description = "Warm-up seconds (default: ${DEFAULT-VALUE}).")
    int warmup;

    @Option(names = "--duration", paramLabel = "S", defaultValue = "120", description = "Measured seconds (default: ${DEFAULT-VALUE}).")
    int duration;

    private final PrintStream out;

    public KafkoramaFanoutScenario() {
        this(System.out);
    }

    KafkoramaFanoutScenario(PrintStream out) {
        this.out = out;
    }

    static int endpointsFor(int clients) {
        return Math.max(1, (int) Math.round(clients / CLIENTS_PER_ENDPOINT));
    }

    @Override
    public Integer call() throws Exception {
        BenchSettings settings = new BenchSettings(clients, endpoints > 0 ? endpoints : endpointsFor(clients), rate, payload,
                Duration.ofSeconds(warmup), Duration.ofSeconds(duration), load.connectRate, load.perAddress, load.clientThreads, 1);
        if (rate <= 0) {
            throw new UsageException("--rate must be above 0: the scenario is a fan-out");
        }
        String fdProblem = FdLimit.problem(clients);
        if (fdProblem != null) {
            throw new UsageException(fdProblem.replace("--connections", "--clients"));
        }
        ScenarioReport report = new ScenarioReport(NAME, SEED, options, out);
        report.begin();
        out.println("sluice bench scenario " + NAME + ": " + settings);
        BridgeCpuSeconds seconds = new BridgeCpuSeconds();
        BenchResult r = load.ownBridge().run(settings, seconds, out);
        OnePointProjection projection = new OnePointProjection(r.bridgeCores(), r.msgsPerSecondOut(), seconds.cores(), r.rssBeforeBytes(),
                r.rssWithConnectionsBytes(), r.connectionsSubscribed());
        report.row(row(r, projection));
        report.detail("fanOut", r);
        report.detail("bridgeCoresPerMeasuredSecond", seconds.cores());
        Map<String, String> projected = new LinkedHashMap<>();
        for (long c : SEED_CLIENTS) {
            projected.put(Long.toString(c), projection.describe(c, r.ratePerEndpoint()));
        }
        report.detail("projected", projected);
        printSummary(r, projection, out);
        report.finish();
        return r.messagesDelivered() > 0 && r.connectFailures() == 0 ? 0 : 1;
    }

    static Map<String, String> row(BenchResult r, OnePointProjection projection) {
        Map<String, String> row = new LinkedHashMap<>();
        row.put("Concurrent clients", "%,d on %,d endpoints".formatted(r.connectionsSubscribed(), r.endpoints()));
        row.put("Outgoing throughput", "%,.0f msgs/s".formatted(r.msgsPerSecondOut()));
        row.put("Outgoing network usage", "%.1f MB/s".formatted(r.mbPerSecondOut()));
        row.put("Latency mean / p99 / max", "%.2f / %.1f / %.0f ms".formatted(r.latencyMeanMs(), r.latencyP99Ms(), r.latencyMaxMs()));
        row.put("CPU", "%.2f bridge cores; %.1f s per million".formatted(r.bridgeCores(), r.bridgeCpuSecondsPerMillion()));
        row.put("Projected (one point)", projection.describe(125_000, r.ratePerEndpoint()) + "; " + projection.describe(1_000_000, r.ratePerEndpoint()));
        return row;
    }

    private static void printSummary(BenchResult r, OnePointProjection projection, PrintStream out) {
        out.println();
        out.println("| Metric | Value |");
        out.println("|---|---|");
        out.printf("| Concurrent clients | %,d (%,d failed) on %,d endpoints |%n", r.connectionsSubscribed(), r.connectFailures(), r.endpoints());
        out.printf("| Outgoing throughput | %,.0f messages/s (%,.0f expected) |%n", r.msgsPerSecondOut(), r.expectedMsgsPerSecondOut());
        out.printf("| Outgoing network usage | %.1f MB/s (loopback) |%n", r.mbPerSecondOut());
        out.printf("| Latency mean | %.2f ms |%n", r.latencyMeanMs());
        out.printf("| Latency 99th percentile | %.1f ms |%n", r.latencyP99Ms());
        out.printf("| Latency max | %.0f ms |%n", r.latencyMaxMs());
        out.printf("| CPU | bridge %.2f cores of %d (%.0f%%); %.1f s per million messages delivered |%n", r.bridgeCores(),
                Runtime.getRuntime().availableProcessors(), 100 * r.bridgeCores() / Runtime.getRuntime().availableProcessors(), r.bridgeCpuSecondsPerMillion());
        out.printf("| Bridge memory | RSS %.0f MiB with the clients, %.1f KB per connection |%n", r.rssWithConnectionsBytes() / 1048576.0,
                r.rssPerConnectionBytes() / 1000);
        out.println();
        out.println("Projected to the seed's scales at " + r.ratePerEndpoint() + " msg/s per client (assumptions: CPU linear in messages with no "
                + "baseline, memory linear in connections; the ± is the 95 % interval of this run's per-second CPU noise, one point cannot show "
                + "whether cost stays linear at that scale):");
        for (long c : SEED_CLIENTS) {
            out.println("  " + projection.describe(c, r.ratePerEndpoint()));
        }
        if (r.firstProblem() != null) {
            out.println("first problem: " + r.firstProblem());
        }
    }
}
