package io.sluice.app.cli;

import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.Callable;

import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

import io.sluice.cli.UsageException;
import io.sluice.results.read.MalformedResultException;
import io.sluice.sizing.bridge.AudienceSpec;
import io.sluice.sizing.bridge.BridgePoint;
import io.sluice.sizing.bridge.BridgeResultReader;
import io.sluice.sizing.report.SizingOutput;

/**
 * {@code sluice size bridge --runs DIR}: connections and messages per core and memory per connection, fitted to
 * {@code bench bridge} results, and the pods for an audience.
 */
@Command(name = "bridge", description = "Bridge pods for an audience, fitted to 'sluice bench bridge --out' runs: connections and messages"
        + " per core, memory per connection. See docs/sizing.md.")
public final class SizeBridgeCommand implements Callable<Integer> {

    @Option(names = "--runs", paramLabel = "DIR", required = true, description = "Where the bench bridge points are.")
    Path runs;

    @Option(names = "--users", paramLabel = "N", defaultValue = "1000000", description = "Concurrent connections to size for (default: ${DEFAULT-VALUE}).")
    long users;

    @Option(names = "--messages-per-user", paramLabel = "R", defaultValue = "1",
            description = "Messages per second each connection receives (default: ${DEFAULT-VALUE}).")
    double messagesPerUser;

    @Option(names = "--headroom", paramLabel = "X", defaultValue = "1.3", description = "Factor over the fitted needs (default: ${DEFAULT-VALUE}).")
    double headroom;

    @Option(names = "--pod-max-millicores", paramLabel = "MC", defaultValue = "4000", description = "Largest pod CPU before adding replicas (default: ${DEFAULT-VALUE}).")
    int podMaxMillicores;

    @Option(names = "--pod-max-memory-mib", paramLabel = "MIB", defaultValue = "8192",
            description = "Largest pod memory before adding replicas (default: ${DEFAULT-VALUE}).")
    int podMaxMemoryMib;

    @Option(names = "--out", paramLabel = "DIR", description = "Where the report is written (default: RUNS/sizing-report).")
    Path out;

    @Override
    public Integer call() throws Exception {
        AudienceSpec audience;
        try {
            audience = new AudienceSpec(users, messagesPerUser, headroom, podMaxMillicores, (long) podMaxMemoryMib << 20);
        } catch (IllegalArgumentException e) {
            throw new UsageException(e.getMessage());
        }
        List<BridgePoint> points;
        try {
            points = BridgeResultReader.readAll(runs);
        } catch (MalformedResultException e) {
            System.err.println("sluice size bridge: " + e.getMessage());
            return 2;
        }
        if (points.isEmpty()) {
            System.err.println("sluice size bridge: no *" + BridgeResultReader.SUFFIX + " under " + runs + " (see docs/sizing.md for the schema)");
            return 2;
        }
        return SizingOutput.writeBridge(points, audience, out != null ? out : runs.resolve("sizing-report"), System.out, System.err);
    }
}
