package io.sluice.bench.sweep;

import java.io.PrintStream;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

import io.sluice.bench.ProxyProbe;
import io.sluice.bench.targets.BenchTarget;
import io.sluice.results.OmbResultJson;
import io.sluice.results.ResultFiles;
import io.sluice.results.RunRecord;
import io.sluice.results.Workload;
import io.sluice.testkit.FreePorts;
import io.sluice.testkit.LocalProxy;
import io.sluice.testkit.RunEnvironment;

/**
 * {@code sluice bench proxy --rates}: the 1 topic / 1 partition scenario at each of several fixed produce rates,
 * against each target, written in the OMB result layout for {@code sluice size}. Rates run lowest first, and the
 * order of the targets alternates from one rate to the next so that neither always runs on a warmer machine.
 */
public final class RateSweep {

    /**
     * @param ratesMBps produce rates in MB/s (10^6 bytes of message values per second); the consumer reads the same
     * @param batchings the producer's batching, each run at every rate: the same bytes in more or fewer requests, so
     *                  that the sizing can tell the proxy's cost per request from its cost per byte
     */
    public record Settings(List<Double> ratesMBps, int messageBytes, Duration warmup, Duration test, Duration interval,
                           List<String> proxyJvmOptions, List<FixedRateLoad.Batching> batchings) {

        /** Batching as OMB's usual driver: linger.ms 1, batch.size 128 KiB. */
        public Settings(List<Double> ratesMBps, int messageBytes, Duration warmup, Duration test, Duration interval, List<String> proxyJvmOptions) {
            this(ratesMBps, messageBytes, warmup, test, interval, proxyJvmOptions, List.of(FixedRateLoad.Batching.OMB_DRIVER));
        }

        public Settings {
            if (batchings.isEmpty()) {
                throw new IllegalArgumentException("at least one batching to run");
            }
        }
    }

    private final Settings settings;
    private final Path out;
    private final PrintStream log;
    private final String launcher;

    /** Where topics are created: the broker, set by {@link #run}. */
    private String brokerBootstrap;

    /** @param launcher the launcher class each target's child proxy runs ({@link LocalProxy}) */
    public RateSweep(Settings settings, Path out, PrintStream log, String launcher) {
        this.settings = settings;
        this.out = out;
        this.log = log;
        this.launcher = launcher;
    }

    /** Runs every rate against every target the build can run; returns the result files written. */
    public List<Path> run(String kafkaBootstrap, List<BenchTarget> targets) throws Exception {
        brokerBootstrap = kafkaBootstrap;
        Map<String, Running> running = new LinkedHashMap<>();
        List<Path> written = new ArrayList<>();
        try {
            for (BenchTarget target : targets) {
                start(kafkaBootstrap, target).ifPresent(r -> running.put(target.name(), r));
            }
            if (running.isEmpty()) {
                throw new IllegalStateException("no target can run in this build");
            }
            List<Double> rates = settings.ratesMBps().stream().sorted().toList();
            for (Running target : running.values()) {
                warmUp(target, rates.get(rates.size() / 2));
            }
            for (int i = 0; i < rates.size(); i++) {
                List<Running> order = new ArrayList<>(running.values());
                if (i % 2 == 1) {
                    Collections.reverse(order);
                }
                for (FixedRateLoad.Batching batching : settings.batchings()) {
                    for (Running target : order) {
                        written.add(runOne(target, rates.get(i), batching));
                    }
                }
            }
            return written;
        } finally {
            running.values().forEach(Running::close);
        }
    }

    private Optional<Running> start(String kafkaBootstrap, BenchTarget target) throws Exception {
        if (target.direct()) {
            return Optional.of(new Running(target, kafkaBootstrap, null, 0));
        }
        String bootstrap = "127.0.0.1:" + FreePorts.block(8);
        int managementPort = FreePorts.block(1);
        Map<String, String> env = BenchTarget.proxyEnvironment(kafkaBootstrap, bootstrap, managementPort);
        Optional<String> unavailable = target.unavailableReason(env);
        if (unavailable.isPresent()) {
            log.printf("skipping target '%s': %s%n", target.name(), unavailable.get());
            return Optional.empty();
        }
        LocalProxy proxy = LocalProxy.start(launcher, target.proxyConfigTemplate(), managementPort, settings.proxyJvmOptions(), env);
        log.printf("target %-12s proxy pid %d at %s%n", target.name(), proxy.pid(), bootstrap);
        return Optional.of(new Running(target, bootstrap, proxy, managementPort));
    }

    /**
     * A freshly started proxy spends its first half minute or so compiling its hot paths; without this the first
     * rate measured would carry the JIT's CPU and look more expensive than the next.
     */
    private void warmUp(Running target, double rateMBps) throws Exception {
        Duration duration = settings.warmup().multipliedBy(2);
        log.printf("%-12s warm-up at %.1f MB/s for %d s (not recorded)%n", target.spec.name(), rateMBps, duration.toSeconds());
        new FixedRateLoad(new FixedRateLoad.Settings(settings.messageBytes(), rateMBps * 1e6 / settings.messageBytes(), Duration.ZERO,
                duration, duration)).run(brokerBootstrap, target.bootstrap, "sweep-warmup-" + target.spec.name() + "-" + System.nanoTime(), () -> { });
    }

    private Path runOne(Running target, double rateMBps, FixedRateLoad.Batching batching) throws Exception {
        double messagesPerSecond = rateMBps * 1e6 / settings.messageBytes();
        Workload workload = workload(rateMBps, messagesPerSecond, batching);
        String topic = "sweep-" + target.spec.name() + "-" + workload.name() + "-" + System.nanoTime();
        FixedRateLoad load = new FixedRateLoad(new FixedRateLoad.Settings(settings.messageBytes(), messagesPerSecond,
                settings.warmup(), settings.test(), settings.interval(), batching));
        ProxyProbe probe = target.proxy == null ? null : ProxyProbe.start(target.proxy.pid(), target.managementPort,
                settings.proxyJvmOptions(), target.spec.proxyConfigTemplate());
        FixedRateLoad.Result result;
        RunRecord.Proxy proxyUsage;
        try {
            result = load.run(brokerBootstrap, target.bootstrap, topic, probe == null ? () -> { } : probe::windowStarts);
            proxyUsage = probe == null ? null : probe.finish();
        } finally {
            if (probe != null) {
                probe.close();
            }
        }
        RunRecord run = new RunRecord(RunRecord.TOOL_BENCH, RunEnvironment.versions().get("sluice"), target.spec.name(), workload,
                rateMBps, (int) settings.warmup().toSeconds(), (int) settings.test().toSeconds(), result.measuredFromMs(),
                result.measuredToMs(),
                RunEnvironment.machine("shared by the broker, the proxy and the load generator (sluice bench)"), proxyUsage,
                RunEnvironment.versions());
        Path file = ResultFiles.write(out, run, OmbResultJson.of(workload, "sluice-bench " + target.spec.name(), result.intervals(),
                result.publishLatency(), result.publishDelay(), result.endToEnd()));
        log.println(summary(target.spec.name() + (batching.equals(FixedRateLoad.Batching.OMB_DRIVER) ? "" : " " + batching.label()),
                rateMBps, messagesPerSecond, result, proxyUsage));
        return file;
    }

    private Workload workload(double rateMBps, double messagesPerSecond, FixedRateLoad.Batching batching) {
        int bytes = settings.messageBytes();
        String size = bytes % 1024 == 0 ? bytes / 1024 + "kb" : bytes + "b";
        String rate = rateMBps == Math.rint(rateMBps) ? Long.toString((long) rateMBps) : Double.toString(rateMBps);
        // The usual batching keeps the names earlier runs have; any other is named, so the runs of one rate differ.
        String shape = batching.equals(FixedRateLoad.Batching.OMB_DRIVER) ? "" : "-" + batching.label();
        return new Workload("1topic-1partition-" + size + "-" + rate + "mbps" + shape, 1, 1, bytes, null, 1, 1, 1,
                Math.round(messagesPerSecond), 0, settings.test().toSeconds() / 60.0, settings.warmup().toSeconds() / 60.0);
    }

    private static String summary(String target, double rateMBps, double messagesPerSecond, FixedRateLoad.Result result,
                                  RunRecord.Proxy proxy) {
        double publish = result.intervals().stream().mapToDouble(OmbResultJson.Interval::publishRate).average().orElse(0);
        double consume = result.intervals().stream().mapToDouble(OmbResultJson.Interval::consumeRate).average().orElse(0);
        long backlog = result.intervals().isEmpty() ? 0 : result.intervals().get(result.intervals().size() - 1).backlog();
        String cpu = "";
        if (proxy != null && proxy.samples().size() >= 2) {
            List<RunRecord.Sample> window = proxy.samples().stream()
                    .filter(s -> s.epochMs() >= result.measuredFromMs() - 500 && s.epochMs() <= result.measuredToMs() + 500).toList();
            if (window.size() >= 2) {
                RunRecord.Sample first = window.get(0);
                RunRecord.Sample last = window.get(window.size() - 1);
                double millicores = (last.cpuNanos() - first.cpuNanos()) / 1e6 / Math.max(1, last.epochMs() - first.epochMs()) * 1000;
                cpu = String.format("  proxy %.0f mc, RSS %d MiB", millicores, last.rssBytes() >> 20);
                if (proxy.requests() != null) {
                    cpu += String.format(", %,.0f Produce + %,.0f Fetch requests/s", proxy.requests().producePerSecond(), proxy.requests().fetchPerSecond());
                }
            }
        }
        return String.format("%-12s %6.1f MB/s target (%,.0f msg/s): published %,.0f msg/s (%.1f %%), consumed %,.0f msg/s, backlog %,d, "
                        + "publish delay p50 %.1f ms, publish p99 %.1f ms%s",
                target, rateMBps, messagesPerSecond, publish, 100 * publish / messagesPerSecond, consume, backlog,
                result.publishDelay().getValueAtPercentile(50) / 1000.0, result.publishLatency().getValueAtPercentile(99) / 1000.0, cpu);
    }

    /** A target ready for load: its bootstrap address, and the proxy process if there is one. */
    private record Running(BenchTarget spec, String bootstrap, LocalProxy proxy, int managementPort) implements AutoCloseable {
        @Override
        public void close() {
            if (proxy != null) {
                proxy.close();
            }
        }
    }
}
