package io.sluice.bench.bridge.scenario;

import java.io.PrintStream;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeSet;
import java.util.concurrent.Callable;

import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

import io.sluice.bench.bridge.BenchReport;
import io.sluice.bench.bridge.BenchResult;
import io.sluice.bench.bridge.BenchSettings;
import io.sluice.bench.bridge.BenchTransport;
import io.sluice.bench.bridge.FdLimit;
import io.sluice.bench.bridge.OwnBridge;
import io.sluice.bench.bridge.ValueShape;
import io.sluice.cli.ScenarioOptions;
import io.sluice.cli.UsageException;
import io.sluice.results.scenario.Seed;
import io.sluice.sizing.projection.ScaleProjection;
import io.sluice.testkit.bench.ScenarioReport;

/**
 * Lightstreamer's published Kafka Connector benchmark (seed 003), scenarios 1 and 2: 1 KiB records at a fixed total
 * rate, every client subscribed to one item, swept over client counts; reported as the seed's tables: mean latency
 * (standard deviation) per client count, and total throughput in bit/s. Each point is a fresh Kafka and bridge
 * ({@link OwnBridge}), so one point's backlog or heap never weighs on the next.
 */
abstract class LightstreamerSweep implements Callable<Integer> {

    static final String SEED_FILE = "../shared/seeds/003_8c8fac210c5faa36.txt";
    static final int PAYLOAD = 1024;

    /** A published column: the client count, "mean (sd)" in ms, total throughput in bit/s as the seed prints it. */
    record Published(int clients, String latency, String throughput) {
    }

    @Mixin
    ScenarioOptions options;

    @Mixin
    BridgeLoadOptions load;

    @Option(names = "--clients", paramLabel = "N,N,...", split = ",",
            description = "Client counts to sweep (default: the seed's counts that fit this machine's open-file limit).")
    List<Integer> clients;

    @Option(names = "--transport", paramLabel = "NAME", defaultValue = "websocket", description = "websocket or sse (default: ${DEFAULT-VALUE}).")
    String transport;

    @Option(names = "--warmup", paramLabel = "S", defaultValue = "10", description = "Warm-up seconds per point (default: ${DEFAULT-VALUE}).")
    int warmup;

    @Option(names = "--duration", paramLabel = "S", defaultValue = "30", description = "Measured seconds per point (default: ${DEFAULT-VALUE}).")
    int duration;

    private final PrintStream out;

    LightstreamerSweep(PrintStream out) {
        this.out = out;
    }

    abstract String name();

    abstract Seed seed();

    /** Endpoints (the seed's items): 1 for scenario 1, where every client gets every record; 40 keys for scenario 2. */
    abstract int endpoints();

    /** Records per second per endpoint: the seed's total rate over its items. */
    abstract double ratePerEndpoint();

    abstract List<Published> published();

    /** The seed's client counts this machine can hold, and its largest. */
    abstract List<Integer> defaultClients();

    @Override
    public Integer call() throws Exception {
        List<Integer> sweep = clients == null || clients.isEmpty() ? defaultClients() : List.copyOf(new TreeSet<>(clients));
        int largest = sweep.get(sweep.size() - 1);
        if (sweep.get(0) < 1) {
            throw new UsageException("--clients must be at least 1");
        }
        String fdProblem = FdLimit.problem(largest);
        if (fdProblem != null) {
            throw new UsageException(fdProblem);
        }
        BenchTransport how = BenchTransport.parse(transport);
        ScenarioReport report = new ScenarioReport(name(), seed(), options, out);
        report.begin();
        OwnBridge bridge = load.ownBridge();
        List<BenchResult> results = new ArrayList<>();
        List<ScaleProjection.Point> points = new ArrayList<>();
        for (int i = 0; i < sweep.size(); i++) {
            int n = sweep.get(i);
            out.printf("%n--- %s point %d of %d: %,d clients ---%n", name(), i + 1, sweep.size(), n);
            BenchSettings settings = new BenchSettings(n, endpoints(), ratePerEndpoint(), PAYLOAD, Duration.ofSeconds(warmup), Duration.ofSeconds(duration),
                    load.connectRate, load.perAddress, load.clientThreads, 1, ValueShape.RAW, List.of(), false, how);
            // A topic per point: on a running Kafka too, no point reads another's records.
            BenchResult r = bridge.withTopic(bridge.topic() + "-" + n).run(settings, out);
            BenchReport.print(r, out);
            results.add(r);
            report.row(row(r));
            if (!Double.isNaN(r.bridgeCores()) && r.rssWithConnectionsBytes() > 0) {
                points.add(new ScaleProjection.Point(r.connectionsSubscribed(), r.bridgeCores(), Math.max(r.rssWithConnectionsBytes(), r.rssEndBytes()) / 1048576.0));
            }
        }
        report.detail("results", results);
        printSeedTables(results);
        ScaleProjection projection = ScaleProjection.fit(points);
        int seedLargest = published().stream().mapToInt(Published::clients).max().orElseThrow();
        if (projection != null && seedLargest > largest) {
            String line = projection.describe(seedLargest);
            out.println(line);
            report.detail("projection", line);
        }
        report.finish();
        return 0;
    }

    static Map<String, String> row(BenchResult r) {
        Map<String, String> row = new LinkedHashMap<>();
        row.put("Clients", "%,d".formatted(r.connectionsSubscribed()));
        row.put("Mean latency (sd), ms", "%.0f (%.0f)".formatted(r.latencyMeanMs(), r.latencyStdDevMs()));
        row.put("p99, ms", "%.1f".formatted(r.latencyP99Ms()));
        row.put("Delivered msgs/s (expected)", "%,.0f (%,.0f)".formatted(r.msgsPerSecondOut(), r.expectedMsgsPerSecondOut()));
        row.put("Total throughput, bit/s", bits(r.mbPerSecondOut() * 8e6));
        row.put("Bridge CPU, cores", Double.isNaN(r.bridgeCores()) ? "n/a" : "%.2f".formatted(r.bridgeCores()));
        row.put("Bridge RSS per client", r.rssPerConnectionBytes() < 0 ? "n/a" : "%.1f KB".formatted(r.rssPerConnectionBytes() / 1000));
        return row;
    }

    /** The seed's own unit: 90M, 1.16G. */
    static String bits(double bitsPerSecond) {
        if (bitsPerSecond >= 1e9) {
            return String.format(Locale.ROOT, "%.2fG", bitsPerSecond / 1e9);
        }
        return String.format(Locale.ROOT, "%.1fM", bitsPerSecond / 1e6);
    }

    /** The seed's two tables, with the published row and this run's row over the union of their client counts. */
    private void printSeedTables(List<BenchResult> results) {
        TreeSet<Integer> counts = new TreeSet<>();
        published().forEach(p -> counts.add(p.clients()));
        results.forEach(r -> counts.add(r.connectionsRequested()));
        Map<Integer, Published> seedByCount = new LinkedHashMap<>();
        published().forEach(p -> seedByCount.put(p.clients(), p));
        Map<Integer, BenchResult> oursByCount = new LinkedHashMap<>();
        results.forEach(r -> oursByCount.put(r.connectionsRequested(), r));
        out.println();
        out.printf("== %s: average latency and standard deviation (ms), the seed's table ==%n", name());
        table(counts, "Lightstreamer Clients (published)", n -> seedByCount.containsKey(n) ? seedByCount.get(n).latency() : "-",
                "Sluice (this run, " + transport + ")", n -> oursByCount.containsKey(n)
                        ? "%.0f (%.0f)".formatted(oursByCount.get(n).latencyMeanMs(), oursByCount.get(n).latencyStdDevMs()) : "-");
        out.printf("== %s: total throughput (bit/s), the seed's table ==%n", name());
        table(counts, "Lightstreamer Clients (published)", n -> seedByCount.containsKey(n) ? seedByCount.get(n).throughput() : "-",
                "Sluice (this run, " + transport + ")", n -> oursByCount.containsKey(n) ? bits(oursByCount.get(n).mbPerSecondOut() * 8e6) : "-");
    }

    private void table(TreeSet<Integer> counts, String first, java.util.function.IntFunction<String> firstCell,
                       String second, java.util.function.IntFunction<String> secondCell) {
        StringBuilder header = new StringBuilder("| No. of clients |");
        StringBuilder rule = new StringBuilder("|---|");
        StringBuilder a = new StringBuilder("| " + first + " |");
        StringBuilder b = new StringBuilder("| " + second + " |");
        for (int n : counts) {
            header.append(' ').append(n % 1000 == 0 ? n / 1000 + "K" : "%,d".formatted(n)).append(" |");
            rule.append("---|");
            a.append(' ').append(firstCell.apply(n)).append(" |");
            b.append(' ').append(secondCell.apply(n)).append(" |");
        }
        out.println(header);
        out.println(rule);
        out.println(a);
        out.println(b);
    }
}
