package io.sluice.app.cli;

import java.nio.file.Path;
import java.util.List;

import io.sluice.sizing.plan.Sizing;
import io.sluice.sizing.plan.TrafficSpec;
import io.sluice.sizing.report.SizingOutput;
import io.sluice.sizing.results.MalformedResultException;
import io.sluice.sizing.results.ResultSet;
import io.sluice.sizing.results.ResultSetReader;

/**
 * {@code sluice size --runs DIR}: fits the proxy's CPU to measured runs (OMB or {@code sluice bench}) and turns it
 * into CPU, memory and replicas for the traffic given, printed and written as a report.
 */
public final class SizeCommand implements Command {

    @Override
    public String name() {
        return "size";
    }

    @Override
    public String summary() {
        return "pods for your traffic from measured runs: --runs DIR [--produce-mb-s P --consumer-groups 1 --message-bytes 1024"
                + " --headroom 1.3 --pod-max-millicores 2000 --out DIR/sizing-report]";
    }

    @Override
    public int run(List<String> args) throws Exception {
        Options o = Options.parse(args, "runs", "produce-mb-s", "consumer-groups", "message-bytes", "headroom", "pod-max-millicores", "out");
        Path runs = Path.of(o.require("runs"));
        TrafficSpec traffic;
        try {
            // Kroxylicious's worked example: 100 MB/s produced, one consumer group, 1 KB messages, x1.3.
            traffic = new TrafficSpec(o.getDouble("produce-mb-s", 100), o.getInt("consumer-groups", 1), o.getInt("message-bytes", 1024),
                    o.getDouble("headroom", 1.3), o.getInt("pod-max-millicores", 2000));
        } catch (IllegalArgumentException e) {
            throw new UsageException(e.getMessage());
        }
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
        Sizing sizing = Sizing.of(runs, results, traffic, !o.has("produce-mb-s"));
        SizingOutput.writeProxy(sizing, runs, Path.of(o.get("out", runs.resolve("sizing-report").toString())), System.out);
        return 0;
    }
}
