package io.sluice.app.cli;

import java.nio.file.Path;
import java.time.Duration;
import java.time.LocalDateTime;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;

import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

import io.sluice.omb.run.OmbInstallation;
import io.sluice.omb.run.OmbRunner;
import io.sluice.omb.workload.WorkloadCatalog;
import io.sluice.omb.workload.WorkloadFile;
import io.sluice.bench.targets.BenchTarget;
import io.sluice.bench.targets.BenchTargets;
import io.sluice.testkit.LocalKafka;

/**
 * {@code sluice omb}: OpenMessaging Benchmark workloads against the broker and the proxy's targets, results stored
 * for {@code sluice size}. Kafka is {@code KAFKA_BOOTSTRAP} when set, else a local broker started for the run.
 */
@Command(name = "omb", description = "OpenMessaging Benchmark workloads against the broker and the proxy's targets, results stored for"
        + " 'sluice size'. Kafka is KAFKA_BOOTSTRAP when set, else a local broker started for the run. See docs/sizing.md.")
public final class OmbCommand implements Callable<Integer> {

    @Option(names = "--workloads", paramLabel = "NAMES", defaultValue = "sweep",
            description = "Workload names or groups, comma-separated; --list shows them (default: ${DEFAULT-VALUE}).")
    String workloads;

    @Option(names = "--targets", paramLabel = "NAMES", defaultValue = "direct,passthrough",
            description = "Targets, comma-separated: built-in names or name=path/to/proxy.yaml (default: ${DEFAULT-VALUE}).")
    String targets;

    @Option(names = "--out", paramLabel = "DIR", description = "Where results are written (default: omb-results/yyyyMMdd-HHmmss).")
    Path out;

    @Option(names = "--omb-home", paramLabel = "DIR", defaultValue = "${env:OMB_HOME}",
            description = "The OpenMessaging Benchmark installation (default: $OMB_HOME).")
    String ombHome;

    @Option(names = "--proxy-heap", paramLabel = "JVM_OPTION", defaultValue = "-Xmx512m", description = "The proxy JVM's heap option (default: ${DEFAULT-VALUE}).")
    String proxyHeap;

    @Option(names = "--margin-minutes", paramLabel = "M", defaultValue = "10",
            description = "Time allowed beyond each workload's own duration before the run is stopped (default: ${DEFAULT-VALUE}).")
    int marginMinutes;

    @Option(names = "--list", description = "List the workloads and targets, and exit.")
    boolean list;

    @Override
    public Integer call() throws Exception {
        WorkloadCatalog catalog = WorkloadCatalog.load();
        if (list) {
            System.out.println("workloads (group name):");
            catalog.names().forEach(name -> System.out.println("  " + catalog.select(name).get(0).group() + "  " + name));
            System.out.println("targets: " + String.join(", ", BenchTargets.builtInNames()) + ", or name=path/to/proxy.yaml");
            return 0;
        }
        List<WorkloadFile> selected;
        OmbInstallation omb;
        try {
            selected = catalog.select(workloads);
            selected.forEach(WorkloadFile::workload);
            omb = OmbInstallation.at(ombHome);
        } catch (IllegalArgumentException e) {
            throw new UsageException(e.getMessage());
        }
        List<BenchTarget> resolved = new ArrayList<>();
        for (String spec : targets.split(",")) {
            try {
                resolved.add(BenchTargets.resolve(spec.trim()));
            } catch (IllegalArgumentException e) {
                System.out.println("skipping target: " + e.getMessage());
            }
        }
        if (resolved.isEmpty()) {
            throw new UsageException("no known target in --targets");
        }
        Path results = out != null ? out : Path.of("omb-results/" + LocalDateTime.now().format(DateTimeFormatter.ofPattern("yyyyMMdd-HHmmss")));
        Map<String, String> ombEnv = new HashMap<>();
        // OMB's script defaults to a 4 GiB heap; benchmarks here share the machine with a broker and a proxy.
        ombEnv.put("HEAP_OPTS", System.getenv().getOrDefault("HEAP_OPTS", "-Xms1g -Xmx1g"));
        OmbRunner.Settings settings = new OmbRunner.Settings(results, List.of(proxyHeap, "-XX:+UseParallelGC"),
                Duration.ofMinutes(marginMinutes), ombEnv);
        System.out.printf("sluice omb: %d workload(s) x %d target(s) with OMB at %s (%s); results in %s%n", selected.size(), resolved.size(),
                omb.home(), omb.version(), results.toAbsolutePath());
        String kafka = System.getenv(BenchTarget.KAFKA_BOOTSTRAP);
        List<Path> written;
        if (kafka != null && !kafka.isBlank()) {
            written = new OmbRunner(omb, settings, System.out).run(kafka, resolved, selected);
        } else {
            try (LocalKafka local = LocalKafka.start(LocalKafka.Options.defaults())) {
                written = new OmbRunner(omb, settings, System.out).run(local.bootstrapServers(), resolved, selected);
            }
        }
        System.out.printf("%nwrote %d OMB results (tool: openmessaging-benchmark) under %s%nnext: ./sluice size --runs %s%n", written.size(), results, results);
        return written.isEmpty() ? 1 : 0;
    }
}
