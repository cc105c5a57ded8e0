package io.sluice.sizing.bridge;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.stream.Stream;

import io.sluice.results.bridge.BridgeResultFile;
import io.sluice.results.read.MalformedResultException;

/**
 * Reads {@code bench bridge} results: files named {@code SCENARIO.bridge.json} ({@link BridgeResultFile}, the schema
 * docs/sizing.md defines) under a directory at any depth, as the sizing's points. A point is saturated when the bridge delivered less than 95 % of what it
 * was sent or any connection failed.
 */
public final class BridgeResultReader {

    public static final String SUFFIX = BridgeResultFile.SUFFIX;
    static final double DELIVERED_FRACTION = 0.95;

    private BridgeResultReader() {
    }

    /** Every point of every bridge result under {@code dir}; malformed files fail with the file and field named. */
    public static List<BridgePoint> readAll(Path dir) {
        List<BridgePoint> points = new ArrayList<>();
        List<String> problems = new ArrayList<>();
        try (Stream<Path> files = Files.walk(dir)) {
            for (Path file : files.filter(f -> f.getFileName().toString().endsWith(SUFFIX)).sorted(Comparator.naturalOrder()).toList()) {
                try {
                    points.addAll(read(file));
                } catch (MalformedResultException e) {
                    problems.add(e.getMessage());
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        if (!problems.isEmpty()) {
            throw new MalformedResultException(dir, "bridge results that cannot be used:\n  " + String.join("\n  ", problems));
        }
        return points;
    }

    public static List<BridgePoint> read(Path file) {
        BridgeResultFile result = BridgeResultFile.read(file);
        List<BridgePoint> points = new ArrayList<>();
        for (BridgeResultFile.Point p : result.points()) {
            double target = p.targetMessagesPerSecond();
            double delivered = p.deliveredMessagesPerSecond();
            List<String> reasons = new ArrayList<>();
            if (target > 0 && delivered < DELIVERED_FRACTION * target) {
                reasons.add(String.format("delivered %.1f %% of %,.0f msg/s", 100 * delivered / target, target));
            }
            if (p.failedConnections() > 0) {
                reasons.add(p.failedConnections() + " connections failed");
            }
            points.add(new BridgePoint(file, result.scenario(), result.messageBytes(), p.connections(), target, delivered, p.cpuMillicores(),
                    p.rssBytes(), p.failedConnections(), p.deliveryLatencyMeanMs(), p.deliveryLatencyP99Ms(), reasons));
        }
        return points;
    }
}
