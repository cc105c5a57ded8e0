package io.sluice.omb.run;

import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeoutException;

import io.sluice.bench.ProxyProbe;
import io.sluice.bench.targets.BenchTarget;
import io.sluice.omb.workload.DriverTemplates;
import io.sluice.omb.workload.WorkloadFile;
import io.sluice.results.ResultFiles;
import io.sluice.results.ResultLayout;
import io.sluice.results.RunRecord;
import io.sluice.results.Workload;
import io.sluice.testkit.FreePorts;
import io.sluice.testkit.LocalProxy;
import io.sluice.testkit.RunEnvironment;

/**
 * Runs a workload × target matrix through a real OMB: per target, the proxy (if any) in its own process with the
 * target's configuration; per workload, OMB in local mode with the target's driver, the proxy's CPU, memory and GC
 * sampled throughout, and the result stored in the layout {@code sluice size} reads, with a run.json beside it.
 */
public final class OmbRunner {

    /**
     * @param launcher the launcher class each target's child proxy runs ({@link LocalProxy})
     * @param margin   added to each workload's warm-up + test time before a run counts as hung (topic creation,
     *                 building a backlog)
     */
    public record Settings(String launcher, Path out, List<String> proxyJvmOptions, Duration margin, Map<String, String> ombEnv) {
    }

    private final OmbInstallation omb;
    private final Settings settings;
    private final PrintStream log;

    public OmbRunner(OmbInstallation omb, Settings settings, PrintStream log) {
        this.omb = omb;
        this.settings = settings;
        this.log = log;
    }

    /** Runs what it can; returns the results written. A target this build cannot run is skipped with the reason. */
    public List<Path> run(String kafkaBootstrap, List<BenchTarget> targets, List<WorkloadFile> workloads) throws Exception {
        List<Path> written = new ArrayList<>();
        for (BenchTarget target : targets) {
            String bootstrap = target.direct() ? kafkaBootstrap : "127.0.0.1:" + FreePorts.block(8);
            int managementPort = target.direct() ? 0 : FreePorts.block(1);
            Map<String, String> env = BenchTarget.proxyEnvironment(kafkaBootstrap, bootstrap, managementPort);
            Optional<String> unavailable = target.unavailableReason(env);
            if (unavailable.isPresent()) {
                log.printf("skipping target '%s': %s%n", target.name(), unavailable.get());
                continue;
            }
            String driver = DriverTemplates.render(target.name(), env);
            LocalProxy proxy = target.direct() ? null
                    : LocalProxy.start(settings.launcher(), target.proxyConfigTemplate(), managementPort, settings.proxyJvmOptions(), env);
            try {
                for (WorkloadFile workload : workloads) {
                    written.add(runOne(target, workload, driver, proxy, managementPort));
                }
            } finally {
                if (proxy != null) {
                    proxy.close();
                }
            }
        }
        return written;
    }

    private Path runOne(BenchTarget target, WorkloadFile file, String driver, LocalProxy proxy, int managementPort) throws Exception {
        Workload workload = file.workload();
        // Absolute: OMB runs in its own home directory, where a path relative to ours names nothing (its workload file not found).
        Path work = Files.createDirectories(settings.out().toAbsolutePath().resolve(".omb-work").resolve(target.name()).resolve(file.name()));
        Path driverFile = Files.writeString(work.resolve("driver.yaml"), DriverTemplates.withProducerConfig(driver, file.producerConfig()));
        Path workloadFile = Files.writeString(work.resolve(file.name() + ".yaml"), file.yaml());
        Path resultFile = work.resolve("result.json");
        Map<String, String> env = new HashMap<>(settings.ombEnv());
        Duration timeout = Duration.ofSeconds((long) (file.expectedMinutes() * 60)).plus(settings.margin());
        log.printf("%-12s %-36s OMB for about %.0f min (log %s)%n", target.name(), file.name(), file.expectedMinutes(), work.resolve("omb.log"));

        ProxyProbe probe = proxy == null ? null : ProxyProbe.start(proxy.pid(), managementPort, settings.proxyJvmOptions(), target.proxyConfigTemplate());
        long started = System.currentTimeMillis();
        OmbProcess.Outcome outcome;
        RunRecord.Proxy usage;
        try {
            outcome = new OmbProcess(omb.command(driverFile, workloadFile, resultFile), omb.home(), env, work.resolve("omb.log"))
                    .run(resultFile, timeout, probe == null ? () -> { } : probe::windowStarts);
            usage = probe == null ? null : probe.finish();
        } catch (TimeoutException e) {
            throw new IllegalStateException(target.name() + "/" + file.name() + ": " + e.getMessage(), e);
        } finally {
            if (probe != null) {
                probe.close();
            }
        }
        long testMs = (long) (workload.testDurationMinutes() * 60_000);
        // Without OMB's "benchmark traffic" line (an OMB that logs differently), assume the test ran just before the result.
        long from = outcome.benchmarkTrafficFromMs() != null ? outcome.benchmarkTrafficFromMs() : Math.max(started, outcome.resultAtMs() - testMs);
        Map<String, String> versions = RunEnvironment.versions();
        versions.put("openmessaging-benchmark", omb.version());
        RunRecord run = new RunRecord(RunRecord.TOOL_OMB, omb.version(), target.name(), workload,
                workload.producerRate() * workload.messageSize() / 1e6,
                (int) Math.round((workload.warmupDurationMinutes() == null ? 1 : workload.warmupDurationMinutes()) * 60), (int) (testMs / 1000),
                from, outcome.resultAtMs(),
                RunEnvironment.machine("shared by the broker, the proxy and OMB (local mode, sluice omb)"), usage, versions);
        Path stored = ResultFiles.store(settings.out(), run, resultFile, file.yaml());
        log.printf("%-12s %-36s done (tool: openmessaging-benchmark): %s%n", target.name(), file.name(),
                ResultLayout.result(settings.out(), target.name(), file.name()));
        return stored;
    }
}
