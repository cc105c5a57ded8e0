package io.sluice.app.cli;

import java.nio.file.Path;
import java.util.concurrent.Callable;

import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

import io.sluice.results.read.MalformedResultException;
import io.sluice.results.read.ResultSet;
import io.sluice.results.read.ResultSetReader;
import io.sluice.sizing.plan.Sizing;
import io.sluice.sizing.plan.TrafficSpec;
import io.sluice.sizing.report.SizingOutput;

/**
 * {@code sluice size --runs DIR}: fits the proxy's CPU to measured runs (OMB or {@code sluice bench}) and turns it
 * into CPU, memory and replicas for the traffic given, printed and written as a report.
 */
@Command(name = "size", subcommands = SizeBridgeCommand.class,
        description = "Pods (CPU, memory, replicas) for your traffic, fitted to measured runs ('sluice bench proxy --rates' or 'sluice omb');"
                + " printed and written as a report. See docs/sizing.md.")
public final class SizeCommand implements Callable<Integer> {

    @Spec
    CommandSpec spec;

    // Not required to picocli: it would then insist on it before 'size bridge' too, whose own --runs it is.
    @Option(names = "--runs", paramLabel = "DIR", description = "Where the measured runs are (required).")
    Path runs;

    // Kroxylicious's worked example: 100 MB/s produced, one consumer group, 1 KB messages, x1.3.
    @Option(names = "--produce-mb-s", paramLabel = "P", defaultValue = "100",
            description = "Produce traffic to size for, in MB/s (default: ${DEFAULT-VALUE}; when not given, the report also sizes the rates measured).")
    double produceMbS;

    @Option(names = "--consumer-groups", paramLabel = "N", defaultValue = "1", description = "Consumer groups reading everything (default: ${DEFAULT-VALUE}).")
    int consumerGroups;

    @Option(names = "--message-bytes", paramLabel = "BYTES", defaultValue = "1024", description = "Typical message size (default: ${DEFAULT-VALUE}).")
    int messageBytes;

    // The traffic's shape: what the proxy's CPU follows is requests (batches) as much as bytes.
    @Option(names = "--message-rate", paramLabel = "MSG_S",
            description = "Messages produced per second, all producers together: instead of --produce-mb-s (MB/s = rate x --message-bytes).")
    Double messageRate;

    @Option(names = "--linger-ms", paramLabel = "MS", description = "The producers' linger.ms (default: 1, the runs' own).")
    Double lingerMs;

    @Option(names = "--batch-bytes", paramLabel = "BYTES", description = "The producers' batch.size (default: 131072, the runs' own).")
    Integer batchBytes;

    @Option(names = "--producers", paramLabel = "N", description = "Producers sharing the message rate (default: 1).")
    Integer producers;

    @Option(names = "--partitions", paramLabel = "N",
            description = "Partitions each producer writes to at once: 1 for records without keys (the sticky partitioner), else the partitions its keys reach (default: 1).")
    Integer partitions;

    @Option(names = "--requests-per-second", paramLabel = "R",
            description = "Produce + Fetch requests per second through the proxy, if known (e.g. from sluice_requests_total): instead of the batching options.")
    Double requestsPerSecond;

    @Option(names = "--headroom", paramLabel = "X", defaultValue = "1.3", description = "Factor over the fitted CPU (default: ${DEFAULT-VALUE}).")
    double headroom;

    @Option(names = "--pod-max-millicores", paramLabel = "MC", defaultValue = "2000", description = "Largest pod CPU before adding replicas (default: ${DEFAULT-VALUE}).")
    int podMaxMillicores;

    @Option(names = "--out", paramLabel = "DIR", description = "Where the report is written (default: RUNS/sizing-report).")
    Path out;

    boolean given(String option) {
        return spec.commandLine().getParseResult().hasMatchedOption(option);
    }

    @Override
    public Integer call() throws Exception {
        if (runs == null) {
            throw new ParameterException(spec.commandLine(), "Missing required option: '--runs=DIR'");
        }
        TrafficSpec traffic = TrafficShapeOptions.traffic(this);
        ResultSet results;
        try {
            results = ResultSetReader.read(runs);
        } catch (MalformedResultException e) {
            System.err.println("sluice size: " + e.getMessage());
            return 2;
        }
        if (!results.problems().isEmpty()) {
            System.err.println("sluice size: " + results.problems().size() + " result file(s) cannot be used; fix or remove them:");
            results.problems().forEach(p -> System.err.println("  " + p.getMessage()));
            return 2;
        }
        if (results.runs().isEmpty()) {
            System.err.println("sluice size: no results under " + runs + " (a result is W.json with W.run.json or W.workload.yaml beside it)."
                    + " Measure first: ./sluice bench proxy --rates 5,10,20,40 --out " + runs + "   or   ./sluice omb --out " + runs);
            return 2;
        }
        Sizing sizing = Sizing.of(runs, results, traffic, !given("--produce-mb-s") && !given("--message-rate"));
        SizingOutput.writeProxy(sizing, runs, out != null ? out : runs.resolve("sizing-report"), System.out);
        return 0;
    }
}
