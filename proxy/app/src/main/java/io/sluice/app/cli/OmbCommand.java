package io.sluice.app.cli;

import java.nio.file.Path;
import java.util.concurrent.Callable;

import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

import io.sluice.omb.run.OmbRun;

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
        return OmbRun.run(new OmbRun.Options(Main.class.getName(), workloads, targets, out, ombHome, proxyHeap, marginMinutes, list));
    }
}
