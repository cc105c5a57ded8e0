package io.sluice.app.cli;

import java.nio.file.Path;
import java.time.Duration;
import java.time.LocalDateTime;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import java.util.stream.Collectors;

import io.sluice.app.demo.DemoCommand;
import io.sluice.bench.CpuSampler;
import io.sluice.bench.ProxyBenchmark;
import io.sluice.bench.sweep.RateSweep;
import io.sluice.bench.targets.BenchTarget;
import io.sluice.bench.targets.TargetCredentials;
import io.sluice.bench.targets.BenchTargets;
import io.sluice.testkit.FreePorts;
import io.sluice.testkit.LocalKafka;
import io.sluice.testkit.LocalProxy;

/**
 * {@code sluice bench proxy}: a broker and the proxy each in a child process (the proxy's CPU read from /proc),
 * and the load, from this JVM, run directly and through the proxy, alternating, in one run; with {@code --targets},
 * through each target's proxy instead ({@link BenchTargets}). With {@code --rates}, fixed-rate runs for sizing
 * instead ({@link RateSweep}).
 */
public final class BenchProxyCommand implements Command {

    @Override
    public String name() {
        return "bench proxy";
    }

    @Override
    public String summary() {
        return "proxy vs direct broker, in one run [--records 200000 --record-bytes 1024 --rounds 3 --latency-rate 1000 --latency-seconds 10"
                + " --targets direct,passthrough,keyrouting]"
                + "; or fixed-rate runs for `sluice size`: --rates 5,10,20,40 (produce MB/s) [--out DIR --targets direct,passthrough"
                + " --seconds 60 --warmup-seconds 15 --interval-seconds 10]";
    }

    @Override
    public int run(List<String> args) throws Exception {
        Options o = Options.parse(args, "records", "record-bytes", "rounds", "latency-rate", "latency-seconds", "proxy-heap",
                "rates", "out", "targets", "seconds", "warmup-seconds", "interval-seconds");
        if (o.has("rates")) {
            return sweep(o);
        }
        for (String sweepOnly : List.of("out", "seconds", "warmup-seconds", "interval-seconds")) {
            if (o.has(sweepOnly)) {
                throw new UsageException("--" + sweepOnly + " belongs to the fixed-rate mode: give --rates too");
            }
        }
        ProxyBenchmark.Settings settings = new ProxyBenchmark.Settings(o.getInt("records", 200_000), o.getInt("record-bytes", 1024),
                o.getInt("rounds", 3), o.getInt("latency-rate", 1000), Duration.ofSeconds(o.getInt("latency-seconds", 10)));
        System.out.printf("sluice bench proxy: %s; %d cores%n", settings, Runtime.getRuntime().availableProcessors());
        if (o.has("targets")) {
            return targets(o, settings);
        }
        try (LocalKafka kafka = LocalKafka.start(LocalKafka.Options.defaults())) {
            String bootstrap = "127.0.0.1:" + FreePorts.block(8);
            int managementPort = FreePorts.block(1);
            // The proxy runs in its own JVM so its CPU, GC and memory are its own, not the load generator's.
            try (LocalProxy proxy = LocalProxy.start(DemoCommand.demoYaml(kafka.bootstrapServers(), bootstrap, managementPort), managementPort,
                    List.of(o.get("proxy-heap", "-Xmx512m"), "-XX:+UseParallelGC"))) {
                Map<String, String> targets = new LinkedHashMap<>();
                targets.put("direct", kafka.bootstrapServers());
                targets.put("proxy", bootstrap);
                System.out.printf("broker pid %d, proxy pid %d; proxy CPU is the proxy process's utime+stime from /proc%n", kafka.pid(), proxy.pid());
                List<ProxyBenchmark.Phase> phases = new ProxyBenchmark(settings, kafka.bootstrapServers(), targets,
                        () -> CpuSampler.processCpuNanos(proxy.pid()), System.out).run();
                printSummary(settings, phases);
            }
        }
        return 0;
    }

    /** The one-run comparison over named targets: each proxy target in a child process of its own. */
    private static int targets(Options o, ProxyBenchmark.Settings settings) throws Exception {
        List<BenchTarget> specs;
        try {
            specs = BenchTargets.resolve(List.of(o.require("targets").split(",")));
        } catch (IllegalArgumentException e) {
            throw new UsageException(e.getMessage());
        }
        List<LocalProxy> proxies = new ArrayList<>();
        try (LocalKafka kafka = LocalKafka.start(LocalKafka.Options.defaults())) {
            Map<String, String> targets = new LinkedHashMap<>();
            Map<String, TargetCredentials.Issued> credentials = new HashMap<>();
            for (BenchTarget spec : specs) {
                if (spec.direct()) {
                    targets.put(spec.name(), kafka.bootstrapServers());
                    continue;
                }
                String bootstrap = "127.0.0.1:" + FreePorts.block(8);
                int managementPort = FreePorts.block(1);
                Map<String, String> env = BenchTarget.proxyEnvironment(kafka.bootstrapServers(), bootstrap, managementPort);
                TargetCredentials.Issued issued = TargetCredentials.forTarget(spec);
                env.putAll(issued.proxyEnvironment());
                credentials.put(spec.name(), issued);
                var unavailable = spec.unavailableReason(env);
                if (unavailable.isPresent()) {
                    System.out.printf("skipping target '%s': %s%n", spec.name(), unavailable.get());
                    continue;
                }
                LocalProxy proxy = LocalProxy.start(spec.proxyConfigTemplate(), managementPort, List.of(o.get("proxy-heap", "-Xmx512m"), "-XX:+UseParallelGC"), env);
                proxies.add(proxy);
                targets.put(spec.name(), bootstrap);
                System.out.printf("target %-12s proxy pid %d at %s%n", spec.name(), proxy.pid(), bootstrap);
            }
            // Only one target carries load at a time and idle proxies cost next to nothing, so the sum is the busy one's CPU.
            List<ProxyBenchmark.Phase> phases = new ProxyBenchmark(settings, kafka.bootstrapServers(), targets, credentials,
                    () -> proxies.stream().mapToLong(p -> CpuSampler.processCpuNanos(p.pid())).sum(), System.out).run();
            printSummary(settings, phases);
        } finally {
            proxies.forEach(LocalProxy::close);
        }
        return 0;
    }

    /**
     * Fixed-rate runs, each target at each produce rate, written as OMB results with a run.json beside each (the
     * layout {@code sluice size} and {@code sluice omb} share).
     */
    private static int sweep(Options o) throws Exception {
        List<Double> rates = parseRates(o.require("rates"));
        Path out = Path.of(o.get("out", "bench-results/" + LocalDateTime.now().format(DateTimeFormatter.ofPattern("yyyyMMdd-HHmmss"))));
        List<BenchTarget> targets;
        try {
            targets = BenchTargets.resolve(List.of(o.get("targets", "direct,passthrough").split(",")));
        } catch (IllegalArgumentException e) {
            throw new UsageException(e.getMessage());
        }
        RateSweep.Settings settings = new RateSweep.Settings(rates, o.getInt("record-bytes", 1024),
                Duration.ofSeconds(o.getInt("warmup-seconds", 15)), Duration.ofSeconds(o.getInt("seconds", 60)),
                Duration.ofSeconds(o.getInt("interval-seconds", 10)), List.of(o.get("proxy-heap", "-Xmx512m"), "-XX:+UseParallelGC"));
        System.out.printf("sluice bench proxy (fixed rates): %s MB/s of %d-byte messages, %d s each after %d s warm-up, targets %s; %d cores; results in %s%n",
                rates, settings.messageBytes(), settings.test().toSeconds(), settings.warmup().toSeconds(),
                targets.stream().map(BenchTarget::name).toList(), Runtime.getRuntime().availableProcessors(), out.toAbsolutePath());
        try (LocalKafka kafka = LocalKafka.start(LocalKafka.Options.defaults())) {
            List<Path> written = new RateSweep(settings, out, System.out).run(kafka.bootstrapServers(), targets);
            System.out.printf("%nwrote %d results (tool: sluice-bench) under %s%nnext: ./sluice size --runs %s%n", written.size(), out, out);
        }
        return 0;
    }

    static List<Double> parseRates(String text) {
        List<Double> rates = new ArrayList<>();
        for (String part : text.split(",")) {
            try {
                double rate = Double.parseDouble(part.trim());
                if (!(rate > 0) || Double.isInfinite(rate)) {
                    throw new NumberFormatException();
                }
                rates.add(rate);
            } catch (NumberFormatException e) {
                throw new UsageException("--rates takes produce rates in MB/s separated by commas, e.g. 5,10,20,40; not '" + part + "'");
            }
        }
        return rates;
    }

    /** The table of every target, then each proxy target against the broker directly (when "direct" ran). */
    private static void printSummary(ProxyBenchmark.Settings settings, List<ProxyBenchmark.Phase> phases) {
        Map<String, List<ProxyBenchmark.Phase>> byTarget = phases.stream().collect(Collectors.groupingBy(ProxyBenchmark.Phase::target, LinkedHashMap::new, Collectors.toList()));
        Function<List<ProxyBenchmark.Phase>, Double> throughput = list -> median(list.stream().mapToDouble(ProxyBenchmark.Phase::mbPerSecond).toArray());
        System.out.println();
        System.out.println("== summary (medians over " + settings.rounds() + " rounds; " + Runtime.getRuntime().availableProcessors()
                + " cores shared by broker, proxy and load) ==");
        System.out.printf("%-12s %12s %14s %14s %14s %14s %16s%n", "target", "MB/s", "produce p50", "produce p99", "e2e p50", "e2e p99", "proxy CPU ms/MB");
        for (var e : byTarget.entrySet()) {
            List<ProxyBenchmark.Phase> list = e.getValue();
            System.out.printf("%-12s %12.1f %12.2fms %12.2fms %12.2fms %12.2fms %16.3f%n", e.getKey(), throughput.apply(list),
                    latency(list, true, 50), latency(list, true, 99), latency(list, false, 50), latency(list, false, 99),
                    median(list.stream().mapToDouble(ProxyBenchmark.Phase::proxyCpuMsPerMb).toArray()));
        }
        List<ProxyBenchmark.Phase> direct = byTarget.get("direct");
        for (var e : byTarget.entrySet()) {
            if (e.getKey().equals("direct")) {
                continue;
            }
            String name = e.getKey();
            List<ProxyBenchmark.Phase> proxy = e.getValue();
            if (direct != null) {
                System.out.printf("throughput ratio %s/direct: %.1f %%%n", name, 100 * throughput.apply(proxy) / throughput.apply(direct));
                System.out.printf("added latency (%s - direct): produce p50 %+.3f ms, p99 %+.3f ms; end-to-end p50 %+.3f ms, p99 %+.3f ms%n", name,
                        latency(proxy, true, 50) - latency(direct, true, 50), latency(proxy, true, 99) - latency(direct, true, 99),
                        latency(proxy, false, 50) - latency(direct, false, 50), latency(proxy, false, 99) - latency(direct, false, 99));
            }
            double cpu = median(proxy.stream().mapToDouble(ProxyBenchmark.Phase::proxyCpuMsPerMb).toArray());
            System.out.printf("%s proxy CPU per MB moved (produce + consume): %.3f ms, i.e. %.1f millicores per MB/s%n", name, cpu, cpu);
        }
    }

    /** Median over rounds of a percentile, in milliseconds. */
    private static double latency(List<ProxyBenchmark.Phase> phases, boolean produce, double percentile) {
        return median(phases.stream().mapToDouble(p -> (produce ? p.produceLatencyMicros() : p.endToEndLatencyMicros()).getValueAtPercentile(percentile) / 1000.0).toArray());
    }

    private static double median(double[] values) {
        double[] sorted = values.clone();
        java.util.Arrays.sort(sorted);
        int n = sorted.length;
        return n == 0 ? Double.NaN : n % 2 == 1 ? sorted[n / 2] : (sorted[n / 2 - 1] + sorted[n / 2]) / 2;
    }
}
