package io.sluice.proxy.cli;

import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import java.util.stream.Collectors;

import io.sluice.proxy.bench.CpuSampler;
import io.sluice.proxy.bench.ProxyBenchmark;
import io.sluice.proxy.embedded.LocalKafka;
import io.sluice.proxy.embedded.FreePorts;
import io.sluice.proxy.embedded.LocalProxy;

/**
 * {@code sluice bench proxy}: a broker and the proxy each in a child process (the proxy's CPU read from /proc),
 * and the load, from this JVM, run directly and through the proxy, alternating, in one run.
 */
public final class BenchProxyCommand implements Command {

    @Override
    public String name() {
        return "bench proxy";
    }

    @Override
    public String summary() {
        return "proxy vs direct broker, in one run [--records 200000 --record-bytes 1024 --rounds 3 --latency-rate 1000 --latency-seconds 10]";
    }

    @Override
    public int run(List<String> args) throws Exception {
        Options o = Options.parse(args, "records", "record-bytes", "rounds", "latency-rate", "latency-seconds", "proxy-heap");
        ProxyBenchmark.Settings settings = new ProxyBenchmark.Settings(o.getInt("records", 200_000), o.getInt("record-bytes", 1024),
                o.getInt("rounds", 3), o.getInt("latency-rate", 1000), Duration.ofSeconds(o.getInt("latency-seconds", 10)));
        System.out.printf("sluice bench proxy: %s; %d cores%n", settings, Runtime.getRuntime().availableProcessors());
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
                List<ProxyBenchmark.Phase> phases = new ProxyBenchmark(settings, targets,
                        () -> CpuSampler.processCpuNanos(proxy.pid()), System.out).run();
                printSummary(settings, phases);
            }
        }
        return 0;
    }

    private static void printSummary(ProxyBenchmark.Settings settings, List<ProxyBenchmark.Phase> phases) {
        Map<String, List<ProxyBenchmark.Phase>> byTarget = phases.stream().collect(Collectors.groupingBy(ProxyBenchmark.Phase::target, LinkedHashMap::new, Collectors.toList()));
        Function<List<ProxyBenchmark.Phase>, Double> throughput = list -> median(list.stream().mapToDouble(ProxyBenchmark.Phase::mbPerSecond).toArray());
        double direct = throughput.apply(byTarget.get("direct"));
        double proxy = throughput.apply(byTarget.get("proxy"));
        System.out.println();
        System.out.println("== summary (medians over " + settings.rounds() + " rounds; " + Runtime.getRuntime().availableProcessors()
                + " cores shared by broker, proxy and load) ==");
        System.out.printf("%-8s %12s %14s %14s %14s %14s %16s%n", "target", "MB/s", "produce p50", "produce p99", "e2e p50", "e2e p99", "proxy CPU ms/MB");
        for (var e : byTarget.entrySet()) {
            List<ProxyBenchmark.Phase> list = e.getValue();
            System.out.printf("%-8s %12.1f %12.2fms %12.2fms %12.2fms %12.2fms %16.3f%n", e.getKey(), throughput.apply(list),
                    latency(list, true, 50), latency(list, true, 99), latency(list, false, 50), latency(list, false, 99),
                    median(list.stream().mapToDouble(ProxyBenchmark.Phase::proxyCpuMsPerMb).toArray()));
        }
        System.out.printf("throughput ratio proxy/direct: %.1f %%%n", 100 * proxy / direct);
        System.out.printf("added latency (proxy - direct): produce p50 %+.3f ms, p99 %+.3f ms; end-to-end p50 %+.3f ms, p99 %+.3f ms%n",
                latency(byTarget.get("proxy"), true, 50) - latency(byTarget.get("direct"), true, 50),
                latency(byTarget.get("proxy"), true, 99) - latency(byTarget.get("direct"), true, 99),
                latency(byTarget.get("proxy"), false, 50) - latency(byTarget.get("direct"), false, 50),
                latency(byTarget.get("proxy"), false, 99) - latency(byTarget.get("direct"), false, 99));
        System.out.printf("proxy CPU per MB moved (produce + consume): %.3f ms, i.e. %.1f millicores per MB/s%n",
                median(byTarget.get("proxy").stream().mapToDouble(ProxyBenchmark.Phase::proxyCpuMsPerMb).toArray()),
                median(byTarget.get("proxy").stream().mapToDouble(ProxyBenchmark.Phase::proxyCpuMsPerMb).toArray()));
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
