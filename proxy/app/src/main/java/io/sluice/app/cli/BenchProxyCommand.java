package io.sluice.app.cli;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;

import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

import io.sluice.bench.proxy.ProxyBench;
import io.sluice.cli.UsageException;

/**
 * {@code sluice bench proxy}: a broker and the proxy each in a child process (the proxy's CPU read from /proc),
 * and the load, from this JVM, run directly and through the proxy, alternating, in one run; with {@code --targets},
 * through each target's proxy instead ({@code BenchTargets}). With {@code --rates}, fixed-rate runs for sizing
 * instead ({@code RateSweep}).
 */
@Command(name = "proxy", description = {
        "The proxy against the broker directly, the same load through each, alternating, in one run (with --targets: through each"
                + " target's proxy instead).",
        "With --rates: fixed-rate runs for 'sluice size' instead, each target at each produce rate."})
public final class BenchProxyCommand implements Callable<Integer> {

    private static final List<String> ONE_RUN_ONLY = List.of("--profile");
    private static final List<String> SWEEP_ONLY = List.of("--out", "--seconds", "--warmup-seconds", "--interval-seconds", "--batching");

    @Spec
    CommandSpec spec;

    @Mixin
    LoadOptions load;

    @Option(names = "--latency-seconds", paramLabel = "S", defaultValue = "10", description = "Length of the latency phase (default: ${DEFAULT-VALUE}).")
    int latencySeconds;

    @Option(names = "--proxy-heap", paramLabel = "JVM_OPTION", defaultValue = "-Xmx512m", description = "The proxy JVM's heap option (default: ${DEFAULT-VALUE}).")
    String proxyHeap;

    @Option(names = "--targets", paramLabel = "NAMES",
            description = "Targets, comma-separated: direct, relay (haproxy relaying TCP, the floor), passthrough, keyrouting, ... or name=path/to/proxy.yaml"
                    + " (default: the demo's passthrough proxy against direct; with --rates: direct,passthrough).")
    String targets;

    @Option(names = "--rates", paramLabel = "MB_S,...", description = "Fixed-rate mode: produce rates in MB/s, comma-separated, e.g. 5,10,20,40.")
    String rates;

    @Option(names = "--out", paramLabel = "DIR", description = "With --rates: where results are written (default: bench-results/yyyyMMdd-HHmmss).")
    Path out;

    @Option(names = "--batching", paramLabel = "LINGER_MS:BATCH_BYTES,...", defaultValue = "1:131072",
            description = "With --rates: the producer's linger.ms and batch.size, each pair run at every rate; e.g. 0:16384,5:16384,50:1048576"
                    + " to size by requests and bytes (default: ${DEFAULT-VALUE}, OMB's driver).")
    String batching;

    @Option(names = "--seconds", paramLabel = "S", defaultValue = "60", description = "With --rates: measured seconds per run (default: ${DEFAULT-VALUE}).")
    int seconds;

    @Option(names = "--warmup-seconds", paramLabel = "S", defaultValue = "15", description = "With --rates: warm-up before each run (default: ${DEFAULT-VALUE}).")
    int warmupSeconds;

    @Option(names = "--interval-seconds", paramLabel = "S", defaultValue = "10",
            description = "With --rates: CPU and throughput sampling interval (default: ${DEFAULT-VALUE}).")
    int intervalSeconds;

    @Option(names = "--profile", description = "Record each proxy with Java Flight Recorder during the measured rounds and print its 20 hottest methods"
            + " (needs a JDK's jcmd; the recordings stay under bench-results/profile-*).")
    boolean profile;

    @Override
    public Integer call() throws Exception {
        // Built here, not in a method of its own: picocli reads this class's method signatures where lib-extra/ is absent.
        var options = new ProxyBench.Options(Main.class.getName(), LoadSettings.of(load, latencySeconds), targets, proxyHeap, out, batching, seconds,
                warmupSeconds, intervalSeconds, profile);
        if (rates != null) {
            for (String oneRunOnly : ONE_RUN_ONLY) {
                if (spec.commandLine().getParseResult().hasMatchedOption(oneRunOnly)) {
                    throw new UsageException(oneRunOnly + " belongs to the one-run comparison: leave out --rates");
                }
            }
            return new ProxyBench(options).sweep(parseRates(rates));
        }
        for (String sweepOnly : SWEEP_ONLY) {
            if (spec.commandLine().getParseResult().hasMatchedOption(sweepOnly)) {
                throw new UsageException(sweepOnly + " belongs to the fixed-rate mode: give --rates too");
            }
        }
        return new ProxyBench(options).run();
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
}
