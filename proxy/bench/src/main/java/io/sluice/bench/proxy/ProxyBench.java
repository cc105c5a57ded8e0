package io.sluice.bench.proxy;

import java.nio.file.Path;
import java.time.Duration;
import java.time.LocalDateTime;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Function;
import java.util.stream.Collectors;

import io.sluice.bench.ProxyBenchmark;
import io.sluice.bench.profile.ProxyProfiler;
import io.sluice.bench.relay.HaproxyConfig;
import io.sluice.bench.relay.HaproxyRelay;
import io.sluice.bench.relay.RelayListener;
import io.sluice.bench.sweep.FixedRateLoad;
import io.sluice.bench.sweep.RateSweep;
import io.sluice.bench.targets.BenchTarget;
import io.sluice.bench.targets.BenchTargets;
import io.sluice.bench.targets.DemoProxyConfig;
import io.sluice.bench.targets.TargetCredentials;
import io.sluice.cli.UsageException;
import io.sluice.testkit.CpuSampler;
import io.sluice.testkit.FreePorts;
import io.sluice.testkit.LocalKafka;
import io.sluice.testkit.LocalProxy;

/**
 * What {@code sluice bench proxy} runs (the app's BenchProxyCommand parses the options into {@link Options}), apart
 * from the command because it uses the demo broker and the benchmark harness, which only {@code lib-extra/} holds:
 * picocli reflects on every command's methods at start-up, so the command class names none of their types and
 * {@code sluice proxy} starts without them.
 */
public final class ProxyBench {

    /** The target that is haproxy relaying TCP, not a proxy configuration: the floor a proxy's CPU is compared to. */
    public static final String RELAY = "relay";

    /**
     * What the command line asked for.
     *
     * @param launcher the launcher class each child proxy runs ({@link LocalProxy})
     * @param load     the one-run load and its latency phase
     * @param targets  comma-separated target names, or null for the demo's passthrough proxy against direct
     * @param out      with the sweep: where results go, or null for bench-results/yyyyMMdd-HHmmss
     * @param profile  record each proxy with JFR during the measured rounds and print its hottest methods
     */
    public record Options(String launcher, ProxyBenchmark.Settings load, String targets, String proxyHeap, Path out, String batching,
                          int seconds, int warmupSeconds, int intervalSeconds, boolean profile) {
    }

    private final Options command;

    public ProxyBench(Options command) {
        this.command = command;
    }

    public int run() throws Exception {
        ProxyBenchmark.Settings settings = command.load();
        System.out.printf("sluice bench proxy: %s; %d cores%n", settings, Runtime.getRuntime().availableProcessors());
        if (command.targets() != null) {
            return throughTargets(settings);
        }
        try (LocalKafka kafka = LocalKafka.start(LocalKafka.Options.defaults())) {
            String bootstrap = "127.0.0.1:" + FreePorts.block(8);
            int managementPort = FreePorts.block(1);
            // The proxy runs in its own JVM so its CPU, GC and memory are its own, not the load generator's.
            try (LocalProxy proxy = LocalProxy.start(command.launcher(), DemoProxyConfig.yaml(kafka.bootstrapServers(), bootstrap, managementPort), managementPort,
                    List.of(command.proxyHeap(), "-XX:+UseParallelGC"))) {
                Map<String, String> bootstraps = new LinkedHashMap<>();
                bootstraps.put("direct", kafka.bootstrapServers());
                bootstraps.put("proxy", bootstrap);
                System.out.printf("broker pid %d, proxy pid %d; proxy CPU is the proxy process's utime+stime from /proc%n", kafka.pid(), proxy.pid());
                ProxyProfiler profiler = profiler(Map.of("proxy", proxy.pid()));
                List<ProxyBenchmark.Phase> phases = new ProxyBenchmark(settings, kafka.bootstrapServers(), bootstraps,
                        () -> CpuSampler.processCpuNanos(proxy.pid()), System.out).onRounds(profiler).run();
                printSummary(settings, phases);
                profiler.print();
            }
        }
        return 0;
    }

    /** The one-run comparison over named targets: each proxy target in a child process of its own, the relay in haproxy. */
    private int throughTargets(ProxyBenchmark.Settings settings) throws Exception {
        List<String> names = Arrays.stream(command.targets().split(",")).map(String::trim).toList();
        List<BenchTarget> specs;
        try {
            specs = BenchTargets.resolve(names.stream().filter(n -> !n.equals(RELAY)).toList());
        } catch (IllegalArgumentException e) {
            throw new UsageException(e.getMessage() + "; or " + RELAY + ", haproxy relaying TCP");
        }
        Optional<Path> haproxy = names.contains(RELAY) ? HaproxyRelay.executable() : Optional.empty();
        if (names.contains(RELAY) && haproxy.isEmpty()) {
            System.out.printf("skipping target '%s': haproxy not installed (not on PATH, nor in /usr/sbin or /usr/local/sbin)%n", RELAY);
        }
        RelayListener relayListener = null;
        LocalKafka.Options brokerOptions = LocalKafka.Options.defaults();
        if (haproxy.isPresent()) {
            int base = FreePorts.block(4);
            relayListener = new RelayListener(base, base + 1, base + 2, base + 3);
            brokerOptions = new LocalKafka.Options(null, relayListener.brokerPort(), null, relayListener.brokerProperties(), null);
        }
        List<LocalProxy> proxies = new ArrayList<>();
        HaproxyRelay relay = null;
        try (LocalKafka kafka = LocalKafka.start(brokerOptions)) {
            Map<String, String> bootstraps = new LinkedHashMap<>();
            Map<String, TargetCredentials.Issued> credentials = new HashMap<>();
            Map<String, Long> proxyPids = new LinkedHashMap<>();
            Iterator<BenchTarget> resolved = specs.iterator();
            for (String name : names) {
                if (name.equals(RELAY)) {
                    if (relayListener != null) {
                        relay = HaproxyRelay.start(haproxy.get(), List.of(new HaproxyConfig.Route(relayListener.advertisedPort(), relayListener.relayUpstream())));
                        bootstraps.put(RELAY, "127.0.0.1:" + relayListener.advertisedPort());
                        System.out.printf("target %-12s haproxy pid %d at 127.0.0.1:%d (mode tcp) -> broker listener %s at %s%n", RELAY, relay.pid(),
                                relayListener.advertisedPort(), RelayListener.NAME, relayListener.relayUpstream());
                    }
                    continue;
                }
                BenchTarget spec = resolved.next();
                if (spec.direct()) {
                    bootstraps.put(spec.name(), kafka.bootstrapServers());
                    continue;
                }
                String bootstrap = "127.0.0.1:" + FreePorts.block(8);
                int managementPort = FreePorts.block(1);
                Map<String, String> env = BenchTarget.proxyEnvironment(kafka.bootstrapServers(), bootstrap, managementPort);
                TargetCredentials.Issued issued = TargetCredentials.forTarget(spec);
                env.putAll(issued.proxyEnvironment());
                Map<String, Object> clients = new HashMap<>(issued.clientConfig());
                clients.putAll(spec.clientConfig());
                credentials.put(spec.name(), new TargetCredentials.Issued(issued.proxyEnvironment(), clients));
                var unavailable = spec.unavailableReason(env);
                if (unavailable.isPresent()) {
                    System.out.printf("skipping target '%s': %s%n", spec.name(), unavailable.get());
                    continue;
                }
                LocalProxy proxy = LocalProxy.start(command.launcher(), spec.proxyConfigTemplate(), managementPort, List.of(command.proxyHeap(), "-XX:+UseParallelGC"), env);
                proxies.add(proxy);
                proxyPids.put(spec.name(), proxy.pid());
                bootstraps.put(spec.name(), bootstrap);
                System.out.printf("target %-12s proxy pid %d at %s%n", spec.name(), proxy.pid(), bootstrap);
            }
            List<Long> pids = new ArrayList<>(proxies.stream().map(LocalProxy::pid).toList());
            if (relay != null) {
                pids.add(relay.pid());
            }
            // Only one target carries load at a time and an idle proxy or relay costs next to nothing, so the sum is the busy one's CPU.
            ProxyProfiler profiler = profiler(proxyPids);
            List<ProxyBenchmark.Phase> phases = new ProxyBenchmark(settings, kafka.bootstrapServers(), bootstraps, credentials,
                    () -> pids.stream().mapToLong(CpuSampler::processCpuNanos).sum(), System.out).onRounds(profiler).run();
            printSummary(settings, phases);
            profiler.print();
        } finally {
            proxies.forEach(LocalProxy::close);
            if (relay != null) {
                relay.close();
            }
        }
        return 0;
    }

    /**
     * What records the proxies with --profile: a listener for the measured rounds. Without --profile it records nothing.
     * haproxy is not a JVM, so the relay target is never profiled.
     */
    private ProxyProfiler profiler(Map<String, Long> pids) {
        Path dir = Path.of("bench-results/profile-" + LocalDateTime.now().format(DateTimeFormatter.ofPattern("yyyyMMdd-HHmmss")));
        return new ProxyProfiler(command.profile() ? pids : Map.of(), dir, System.out);
    }

    /** The producer batchings to run at each rate (--batching). */
    private List<FixedRateLoad.Batching> batchings() {
        try {
            return FixedRateLoad.Batching.parseList(command.batching());
        } catch (IllegalArgumentException e) {
            throw new UsageException(e.getMessage());
        }
    }

    /**
     * Fixed-rate runs, each target at each produce rate, written as OMB results with a run.json beside each (the
     * layout {@code sluice size} and {@code sluice omb} share).
     */
    public int sweep(List<Double> produceRates) throws Exception {
        Path results = command.out() != null ? command.out() : Path.of("bench-results/" + LocalDateTime.now().format(DateTimeFormatter.ofPattern("yyyyMMdd-HHmmss")));
        List<BenchTarget> resolved;
        List<String> names = Arrays.stream((command.targets() != null ? command.targets() : "direct,passthrough").split(",")).map(String::trim).toList();
        if (names.contains(RELAY)) {
            throw new UsageException("target " + RELAY + " is for the one-run comparison only; leave it out with --rates");
        }
        try {
            resolved = BenchTargets.resolve(names);
        } catch (IllegalArgumentException e) {
            throw new UsageException(e.getMessage());
        }
        RateSweep.Settings settings = new RateSweep.Settings(produceRates, command.load().recordBytes(), Duration.ofSeconds(command.warmupSeconds()),
                Duration.ofSeconds(command.seconds()), Duration.ofSeconds(command.intervalSeconds()), List.of(command.proxyHeap(), "-XX:+UseParallelGC"),
                batchings());
        System.out.printf("sluice bench proxy (fixed rates): %s MB/s of %d-byte messages, %d s each after %d s warm-up, targets %s; %d cores; results in %s%n",
                produceRates, settings.messageBytes(), settings.test().toSeconds(), settings.warmup().toSeconds(),
                resolved.stream().map(BenchTarget::name).toList(), Runtime.getRuntime().availableProcessors(), results.toAbsolutePath());
        try (LocalKafka kafka = LocalKafka.start(LocalKafka.Options.defaults())) {
            List<Path> written = new RateSweep(settings, results, System.out, command.launcher()).run(kafka.bootstrapServers(), resolved);
            System.out.printf("%nwrote %d results (tool: sluice-bench) under %s%nnext: ./sluice size --runs %s%n", written.size(), results, results);
        }
        return 0;
    }

    /** The table of every target, then each proxy target against the broker directly (when "direct" ran). */
    private static void printSummary(ProxyBenchmark.Settings settings, List<ProxyBenchmark.Phase> phases) {
        Map<String, List<ProxyBenchmark.Phase>> byTarget = phases.stream().collect(Collectors.groupingBy(ProxyBenchmark.Phase::target, LinkedHashMap::new, Collectors.toList()));
        Function<List<ProxyBenchmark.Phase>, Double> throughput = list -> median(list.stream().mapToDouble(ProxyBenchmark.Phase::mbPerSecond).toArray());
        System.out.println();
        System.out.println("== summary (medians over " + settings.rounds() + " rounds; " + Runtime.getRuntime().availableProcessors()
                + " cores shared by broker, proxy and load) ==");
        System.out.printf("%-12s %12s %14s %14s %14s %14s %16s%n", "target", "MB/s", "produce p50", "produce p99", "e2e p50", "e2e p99", "proxy CPU ms/MB");
        // For the relay target, "proxy CPU" is haproxy's.
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
            System.out.printf("%s %s CPU per MB moved (produce + consume): %.3f ms, i.e. %.1f millicores per MB/s%n", name,
                    name.equals(RELAY) ? "haproxy" : "proxy", cpu, cpu);
        }
        List<ProxyBenchmark.Phase> relay = byTarget.get(RELAY);
        if (relay != null) {
            double relayCpu = median(relay.stream().mapToDouble(ProxyBenchmark.Phase::proxyCpuMsPerMb).toArray());
            for (var e : byTarget.entrySet()) {
                if (!e.getKey().equals("direct") && !e.getKey().equals(RELAY)) {
                    double cpu = median(e.getValue().stream().mapToDouble(ProxyBenchmark.Phase::proxyCpuMsPerMb).toArray());
                    System.out.printf("CPU per MB ratio %s/%s: %.2f (the proxy's CPU over a TCP relay's moving the same bytes)%n", e.getKey(), RELAY,
                            cpu / relayCpu);
                }
            }
        }
    }

    /** Median over rounds of a percentile, in milliseconds. */
    private static double latency(List<ProxyBenchmark.Phase> phases, boolean produce, double percentile) {
        return median(phases.stream().mapToDouble(p -> (produce ? p.produceLatencyMicros() : p.endToEndLatencyMicros()).getValueAtPercentile(percentile) / 1000.0).toArray());
    }

    private static double median(double[] values) {
        double[] sorted = values.clone();
        Arrays.sort(sorted);
        int n = sorted.length;
        return n == 0 ? Double.NaN : n % 2 == 1 ? sorted[n / 2] : (sorted[n / 2 - 1] + sorted[n / 2]) / 2;
    }
}
