package io.sluice.omb.scenario;

import java.io.PrintStream;
import java.nio.file.Path;
import java.time.Duration;
import java.time.LocalDateTime;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

import io.sluice.bench.scenario.KmsCalls;
import io.sluice.bench.scenario.ScenarioKms;
import io.sluice.bench.scenario.ScenarioProxy;
import io.sluice.bench.targets.BenchTarget;
import io.sluice.cli.ScenarioOptions;
import io.sluice.cli.UsageException;
import io.sluice.omb.run.OmbInstallation;
import io.sluice.omb.run.OmbRunner;
import io.sluice.omb.workload.WorkloadFile;
import io.sluice.results.scenario.Seed;
import io.sluice.testkit.bench.BenchKafka;
import io.sluice.testkit.bench.ScenarioReport;

/**
 * What {@code sluice bench scenario kroxylicious-omb} runs (the app's KroxyliciousOmbCommand gives the {@link Settings}). Per target (the broker, the passthrough proxy, the encrypting proxy) and
 * per workload: one OMB run through {@link OmbRunner}, the result stored in the layout {@code sluice size} reads, and
 * the encrypting proxy's KMS calls over that run read from its {@code /metrics} before and after.
 *
 * <p>The scenario starts each proxy itself rather than letting OmbRunner start one per target: OmbRunner closes its
 * proxy when its workloads are done, and the KMS counters must be read from the live proxy between runs. To OmbRunner
 * every target is then an address to send OMB to (a target without a proxy configuration), so its run records carry no
 * proxy CPU samples: the seed's figures do not need them.
 */
public final class KroxyliciousOmbRun {

    public static final String NAME = "kroxylicious-omb";

    /**
     * What the command line asked for (the app's KroxyliciousOmbCommand).
     *
     * @param launcher the launcher class each child proxy runs ({@link io.sluice.testkit.LocalProxy})
     * @param kafka    a running Kafka's bootstrap servers, or null to start one
     * @param rates    1 topic, 1 partition, 1 KiB: the producer rates to run, msg/s
     * @param topics   the multi-topic workload's topics; 0 leaves it out
     * @param kms      the encrypting proxy's KMS kind, {@code vault} or {@code aws} ({@link ScenarioKms})
     */
    public record Settings(String launcher, ScenarioOptions options, String kafka, int[] rates, int topics, int topicRate, int warmupMinutes,
                           int testMinutes, String ombHome, int marginMinutes, String kms) {
    }

    static final Seed SEED = new Seed("002_467df02c561b33af.txt", "Kroxylicious performance page: OMB through the proxy and RecordEncryption",
            "2 shared cores here, the broker, the proxy, OMB (local mode, one JVM) and the KMS on one machine over loopback; the seed ran a"
                    + " 3-broker Strimzi cluster (RF 3) on 5 OpenShift workers (AMD EPYC-Rome 2 GHz), one proxy pod limited to 1000m, Vault in"
                    + " the cluster. Here: one broker, RF 1, the proxy unlimited (a 512 MiB heap); rates scaled down (the seed's 34,000-37,200"
                    + " msg/s are beyond 2 cores with encryption, whose ceiling here is about 30,000 msg/s of 1 KiB without OMB; 10 topics run at"
                    + " the seed's reported 5,000 msg/s in all); 1-minute warm-up and test (the seed's OMB default runs longer); one KEK for every topic (the seed: one per topic);"
                    + " Vault = the in-process Transit stand-in unless VAULT_ADDR is set; Kroxylicious 0.20.0 there, Sluice here.");

    public static final String KEK = "sluice-bench";
    private static final List<String> TARGETS = List.of("direct", "passthrough", "encryption");

    private KroxyliciousOmbRun() {
    }

    /** One OMB run's outcome. */
    record Measured(String workload, String target, OmbFigures figures, KmsCalls kmsCalls, Path result) {
    }

    public static int run(Settings command, PrintStream out) throws Exception {
        OmbInstallation omb;
        try {
            omb = OmbInstallation.at(command.ombHome());
        } catch (IllegalArgumentException e) {
            throw new UsageException("kroxylicious-omb runs OpenMessaging Benchmark, as the seed did, and nothing else stands in for it: "
                    + e.getMessage() + " (`bench proxy --rates` and `bench encryption` measure the same proxies with Sluice's own load"
                    + " generator, but not the seed's figures).");
        }
        if (!ScenarioKms.KINDS.contains(command.kms())) {
            throw new UsageException("--kms: '" + command.kms() + "' is not one of " + ScenarioKms.KINDS);
        }
        List<WorkloadFile> workloads = workloads(command);
        ScenarioReport report = new ScenarioReport(NAME, SEED, command.options(), out);
        report.begin();
        Path ombOut = command.options().results().resolve(NAME)
                .resolve("omb-" + LocalDateTime.now().format(DateTimeFormatter.ofPattern("yyyyMMdd-HHmmss")));
        Map<String, String> ombEnv = Map.of("HEAP_OPTS", System.getenv().getOrDefault("HEAP_OPTS", "-Xms1g -Xmx1g"));
        OmbRunner.Settings settings = new OmbRunner.Settings(command.launcher(), ombOut, ScenarioProxy.JVM_OPTIONS, Duration.ofMinutes(command.marginMinutes()), ombEnv);
        out.printf("OMB at %s (%s); %d workload(s) x %d targets, about %d min; OMB results in %s%n", omb.home(), omb.version(), workloads.size(),
                TARGETS.size(), workloads.size() * TARGETS.size() * (command.warmupMinutes() + command.testMinutes() + 1), ombOut);

        List<Measured> measured = new ArrayList<>();
        try (BenchKafka local = BenchKafka.open(command.kafka());
             ScenarioKms kms = ScenarioKms.from(command.kms(), System.getenv())) {
            String kafka = local.bootstrapServers();
            kms.ensureKey(KEK);
            out.printf("Kafka %s; KMS: %s, KEK %s%n", kafka, kms.description(), KEK);
            report.detail("kms", kms.description());
            for (String target : TARGETS) {
                try (ScenarioProxy proxy = startProxy(command.launcher(), target, kafka, kms)) {
                    String bootstrap = proxy == null ? kafka : proxy.bootstrap();
                    for (WorkloadFile workload : workloads) {
                        KmsCalls before = proxy == null ? KmsCalls.NONE : proxy.kmsCalls();
                        Optional<KmsCalls> servedBefore = kms.servedCalls();
                        // A target without a proxy configuration: OmbRunner sends OMB to the address, this class runs the proxy.
                        List<Path> written = new OmbRunner(omb, settings, out)
                                .run(bootstrap, List.of(new BenchTarget(target, target + " (started by the scenario)", null)), List.of(workload));
                        KmsCalls calls = proxy == null ? KmsCalls.NONE : proxy.kmsCalls().since(before);
                        Measured m = new Measured(workload.name(), target, OmbFigures.read(written.get(0)), calls, written.get(0));
                        measured.add(m);
                        out.printf("%-12s %-32s publish %s, avg %s, p99 %s, E2E avg %s; the proxy's KMS calls: %s%s%n", target,
                                workload.name(), OmbFigures.rate(m.figures().publishRate()), OmbFigures.ms(m.figures().publishAvgMs()),
                                OmbFigures.ms(m.figures().publishP99Ms()), OmbFigures.ms(m.figures().endToEndAvgMs()), calls,
                                servedBefore.map(b -> "; the KMS served " + kms.servedCalls().orElseThrow().since(b)).orElse(""));
                    }
                }
            }
        }
        rows(measured, workloads).forEach(report::row);
        report.detail("ombResults", ombOut.toString());
        report.detail("runs", measured);
        report.finish();
        return 0;
    }

    private static ScenarioProxy startProxy(String launcher, String target, String kafka, ScenarioKms kms) throws Exception {
        return switch (target) {
            case "direct" -> null;
            case "passthrough" -> ScenarioProxy.start(launcher, kafka, "", Map.of());
            case "encryption" -> ScenarioProxy.start(launcher, kafka, kms.filterDefinition("encrypt", KEK), kms.proxyEnvironment());
            default -> throw new IllegalArgumentException(target);
        };
    }

    /** The seed's table, one row per workload and target: its figures, the delta against the broker, the KMS calls. */
    static List<Map<String, String>> rows(List<Measured> measured, List<WorkloadFile> workloads) {
        List<Map<String, String>> rows = new ArrayList<>();
        for (WorkloadFile workload : workloads) {
            OmbFigures baseline = measured.stream().filter(m -> m.workload().equals(workload.name()) && m.target().equals("direct"))
                    .map(Measured::figures).findFirst().orElse(null);
            for (Measured m : measured) {
                if (!m.workload().equals(workload.name())) {
                    continue;
                }
                OmbFigures f = m.figures();
                Map<String, String> row = new LinkedHashMap<>();
                row.put("Workload", workload.name());
                row.put("Target", m.target());
                row.put("Publish rate", OmbFigures.rate(f.publishRate()));
                row.put("Publish avg", OmbFigures.ms(f.publishAvgMs()));
                row.put("Publish p99", OmbFigures.ms(f.publishP99Ms()));
                row.put("E2E avg", OmbFigures.ms(f.endToEndAvgMs()));
                boolean isBaseline = baseline == null || m.target().equals("direct");
                row.put("Δ publish avg", isBaseline ? "baseline" : OmbFigures.delta(f.publishAvgMs(), baseline.publishAvgMs()));
                row.put("Δ publish p99", isBaseline ? "baseline" : OmbFigures.delta(f.publishP99Ms(), baseline.publishP99Ms()));
                row.put("Δ E2E avg", isBaseline ? "baseline" : OmbFigures.delta(f.endToEndAvgMs(), baseline.endToEndAvgMs()));
                row.put("KMS data-key generations", m.target().equals("encryption") ? Long.toString(m.kmsCalls().dataKeyGenerations()) : "n/a");
                row.put("KMS decryptions", m.target().equals("encryption") ? Long.toString(m.kmsCalls().unwraps()) : "n/a");
                rows.add(row);
            }
        }
        return rows;
    }

    /** The seed's workloads at this run's scale, in OMB's format, named so that each names its shape and rate. */
    static List<WorkloadFile> workloads(Settings command) {
        List<WorkloadFile> files = new ArrayList<>();
        for (int rate : command.rates()) {
            files.add(workload("kroxylicious-1topic-1kb-" + rate, 1, rate, command));
        }
        if (command.topics() > 0) {
            files.add(workload("kroxylicious-" + command.topics() + "topics-1kb-" + command.topicRate() + "-each", command.topics(),
                    command.topics() * command.topicRate(), command));
        }
        return files;
    }

    private static WorkloadFile workload(String name, int topics, int totalRate, Settings command) {
        String yaml = """
                # Kroxylicious's shape (seed 002): %d topic(s), 1 partition each, 1 KiB, %d msg/s in total, one producer and one consumer per topic.
                name: %s
                topics: %d
                partitionsPerTopic: 1
                messageSize: 1024
                payloadFile: "payload/payload-1Kb.data"
                subscriptionsPerTopic: 1
                consumerPerSubscription: 1
                producersPerTopic: 1
                producerRate: %d
                consumerBacklogSizeGB: 0
                testDurationMinutes: %d
                warmupDurationMinutes: %d
                """.formatted(topics, totalRate, name, topics, totalRate, command.testMinutes(), command.warmupMinutes());
        WorkloadFile file = new WorkloadFile(name, "kroxylicious-omb", yaml);
        file.workload();
        return file;
    }
}
