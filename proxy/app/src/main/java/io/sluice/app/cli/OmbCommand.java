package io.sluice.app.cli;

import java.nio.file.Path;
import java.time.Duration;
import java.time.LocalDateTime;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

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
public final class OmbCommand implements Command {

    @Override
    public String name() {
        return "omb";
    }

    @Override
    public String summary() {
        return "OpenMessaging Benchmark (OMB_HOME) against the broker and the proxy [--workloads sweep --targets direct,passthrough"
                + " --out omb-results/TIME --omb-home DIR --proxy-heap -Xmx512m]; see docs/sizing.md";
    }

    @Override
    public int run(List<String> args) throws Exception {
        Options o = Options.parse(args, "workloads", "targets", "out", "omb-home", "proxy-heap", "margin-minutes", "list!");
        WorkloadCatalog catalog = WorkloadCatalog.load();
        if (o.flag("list")) {
            System.out.println("workloads (group name):");
            catalog.names().forEach(name -> System.out.println("  " + catalog.select(name).get(0).group() + "  " + name));
            System.out.println("targets: " + String.join(", ", BenchTargets.builtInNames()) + ", or name=path/to/proxy.yaml");
            return 0;
        }
        List<WorkloadFile> workloads;
        OmbInstallation omb;
        try {
            workloads = catalog.select(o.get("workloads", "sweep"));
            workloads.forEach(WorkloadFile::workload);
            omb = OmbInstallation.at(o.get("omb-home", System.getenv("OMB_HOME")));
        } catch (IllegalArgumentException e) {
            throw new UsageException(e.getMessage());
        }
        List<BenchTarget> targets = new ArrayList<>();
        for (String spec : o.get("targets", "direct,passthrough").split(",")) {
            try {
                targets.add(BenchTargets.resolve(spec.trim()));
            } catch (IllegalArgumentException e) {
                System.out.println("skipping target: " + e.getMessage());
            }
        }
        if (targets.isEmpty()) {
            throw new UsageException("no known target in --targets");
        }
        Path out = Path.of(o.get("out", "omb-results/" + LocalDateTime.now().format(DateTimeFormatter.ofPattern("yyyyMMdd-HHmmss"))));
        Map<String, String> ombEnv = new HashMap<>();
        // OMB's script defaults to a 4 GiB heap; benchmarks here share the machine with a broker and a proxy.
        ombEnv.put("HEAP_OPTS", System.getenv().getOrDefault("HEAP_OPTS", "-Xms1g -Xmx1g"));
        OmbRunner.Settings settings = new OmbRunner.Settings(out, List.of(o.get("proxy-heap", "-Xmx512m"), "-XX:+UseParallelGC"),
                Duration.ofMinutes(o.getInt("margin-minutes", 10)), ombEnv);
        System.out.printf("sluice omb: %d workload(s) x %d target(s) with OMB at %s (%s); results in %s%n", workloads.size(), targets.size(),
                omb.home(), omb.version(), out.toAbsolutePath());
        String kafka = System.getenv(BenchTarget.KAFKA_BOOTSTRAP);
        List<Path> written;
        if (kafka != null && !kafka.isBlank()) {
            written = new OmbRunner(omb, settings, System.out).run(kafka, targets, workloads);
        } else {
            try (LocalKafka local = LocalKafka.start(LocalKafka.Options.defaults())) {
                written = new OmbRunner(omb, settings, System.out).run(local.bootstrapServers(), targets, workloads);
            }
        }
        System.out.printf("%nwrote %d OMB results (tool: openmessaging-benchmark) under %s%nnext: ./sluice size --runs %s%n", written.size(), out, out);
        return written.isEmpty() ? 1 : 0;
    }
}
