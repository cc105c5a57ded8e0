package io.sluice.omb.run;

import java.nio.file.Path;
import java.time.Duration;
import java.time.LocalDateTime;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import io.sluice.bench.targets.BenchTarget;
import io.sluice.bench.targets.BenchTargets;
import io.sluice.cli.UsageException;
import io.sluice.omb.run.OmbInstallation;
import io.sluice.omb.run.OmbRunner;
import io.sluice.omb.workload.WorkloadCatalog;
import io.sluice.omb.workload.WorkloadFile;
import io.sluice.testkit.bench.BenchKafka;

/**
 * What {@code sluice omb} runs (the app's OmbCommand parses the options into {@link Options}), apart from it because it uses the OMB workloads, the benchmark targets and the demo
 * broker, which only {@code lib-extra/} holds: picocli reflects on every command's methods at start-up, so the command
 * class names none of their types and {@code sluice proxy} starts without them.
 */
public final class OmbRun {

    /**
     * What the command line asked for.
     *
     * @param launcher  the launcher class each target's child proxy runs ({@link io.sluice.testkit.LocalProxy})
     * @param workloads workload names or groups, comma-separated
     * @param targets   target names or name=path, comma-separated
     * @param out       where results go, or null for omb-results/yyyyMMdd-HHmmss
     * @param list      only list the workloads and targets
     */
    public record Options(String launcher, String workloads, String targets, Path out, String ombHome, String proxyHeap, int marginMinutes,
                          boolean list) {
    }

    private OmbRun() {
    }

    public static int run(Options command) throws Exception {
        WorkloadCatalog catalog = WorkloadCatalog.load();
        if (command.list()) {
            System.out.println("workloads (group name):");
            catalog.names().forEach(name -> System.out.println("  " + catalog.select(name).get(0).group() + "  " + name));
            System.out.println("targets: " + String.join(", ", BenchTargets.builtInNames()) + ", or name=path/to/proxy.yaml");
            return 0;
        }
        List<WorkloadFile> selected;
        OmbInstallation omb;
        try {
            selected = catalog.select(command.workloads());
            selected.forEach(WorkloadFile::workload);
            omb = OmbInstallation.at(command.ombHome());
        } catch (IllegalArgumentException e) {
            throw new UsageException(e.getMessage());
        }
        List<BenchTarget> resolved = new ArrayList<>();
        for (String spec : command.targets().split(",")) {
            try {
                BenchTarget target = BenchTargets.resolve(spec.trim());
                if (!target.clientConfig().isEmpty()) {
                    // OMB's Kafka driver writes its own random payloads and cannot load the bench's client classes.
                    System.out.println("skipping target " + target.name() + ": its clients need " + target.clientConfig().keySet()
                            + " from the bench, which OMB's driver does not carry; use ./sluice bench proxy --targets " + target.name());
                    continue;
                }
                resolved.add(target);
            } catch (IllegalArgumentException e) {
                System.out.println("skipping target: " + e.getMessage());
            }
        }
        if (resolved.isEmpty()) {
            throw new UsageException("no known target in --targets");
        }
        Path results = command.out() != null ? command.out() : Path.of("omb-results/" + LocalDateTime.now().format(DateTimeFormatter.ofPattern("yyyyMMdd-HHmmss")));
        Map<String, String> ombEnv = new HashMap<>();
        // OMB's script defaults to a 4 GiB heap; benchmarks here share the machine with a broker and a proxy.
        ombEnv.put("HEAP_OPTS", System.getenv().getOrDefault("HEAP_OPTS", "-Xms1g -Xmx1g"));
        OmbRunner.Settings settings = new OmbRunner.Settings(command.launcher(), results, List.of(command.proxyHeap(), "-XX:+UseParallelGC"),
                Duration.ofMinutes(command.marginMinutes()), ombEnv);
        System.out.printf("sluice omb: %d workload(s) x %d target(s) with OMB at %s (%s); results in %s%n", selected.size(), resolved.size(),
                omb.home(), omb.version(), results.toAbsolutePath());
        List<Path> written;
        try (BenchKafka kafka = BenchKafka.open(System.getenv(BenchTarget.KAFKA_BOOTSTRAP))) {
            written = new OmbRunner(omb, settings, System.out).run(kafka.bootstrapServers(), resolved, selected);
        }
        System.out.printf("%nwrote %d OMB results (tool: openmessaging-benchmark) under %s%nnext: ./sluice size --runs %s%n", written.size(), results, results);
        return written.isEmpty() ? 1 : 0;
    }
}
