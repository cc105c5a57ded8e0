package io.sluice.app.cli;

import java.nio.file.Path;
import java.util.List;

import io.sluice.sizing.bridge.AudienceSpec;
import io.sluice.sizing.bridge.BridgePoint;
import io.sluice.sizing.bridge.BridgeResultReader;
import io.sluice.sizing.report.SizingOutput;
import io.sluice.sizing.results.MalformedResultException;

/**
 * {@code sluice size bridge --runs DIR}: connections and messages per core and memory per connection, fitted to
 * {@code bench bridge} results, and the pods for an audience.
 */
public final class SizeBridgeCommand implements Command {

    @Override
    public String name() {
        return "size bridge";
    }

    @Override
    public String summary() {
        return "bridge pods for an audience from `bench bridge` runs: --runs DIR [--users 1000000 --messages-per-user 1 --headroom 1.3"
                + " --pod-max-millicores 4000 --pod-max-memory-mib 8192 --out DIR/sizing-report]";
    }

    @Override
    public int run(List<String> args) throws Exception {
        Options o = Options.parse(args, "runs", "users", "messages-per-user", "headroom", "pod-max-millicores", "pod-max-memory-mib", "out");
        Path runs = Path.of(o.require("runs"));
        AudienceSpec audience;
        try {
            audience = new AudienceSpec(Long.parseLong(o.get("users", "1000000")), o.getDouble("messages-per-user", 1), o.getDouble("headroom", 1.3),
                    o.getInt("pod-max-millicores", 4000), (long) o.getInt("pod-max-memory-mib", 8192) << 20);
        } catch (NumberFormatException e) {
            throw new UsageException("--users must be a whole number");
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
        return SizingOutput.writeBridge(points, audience, Path.of(o.get("out", runs.resolve("sizing-report").toString())), System.out, System.err);
    }
}
