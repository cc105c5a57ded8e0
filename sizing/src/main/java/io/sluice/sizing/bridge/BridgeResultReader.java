package io.sluice.sizing.bridge;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.OptionalLong;
import java.util.stream.Stream;

import com.fasterxml.jackson.databind.JsonNode;

import io.sluice.results.read.JsonFields;
import io.sluice.results.read.MalformedResultException;
import io.sluice.results.read.OmbResultReader;

/**
 * Reads {@code bench bridge} results: files named {@code SCENARIO.bridge.json}, in the schema docs/sizing.md
 * defines, under a directory at any depth. A point is saturated when the bridge delivered less than 95 % of what it
 * was sent or any connection failed.
 */
public final class BridgeResultReader {

    public static final String SUFFIX = ".bridge.json";
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
        JsonNode root = OmbResultReader.parse(file);
        JsonFields f = new JsonFields(file);
        String tool = f.text(root, "", "tool");
        if (!tool.equals("sluice-bench-bridge")) {
            throw f.fail("tool", "must be \"sluice-bench-bridge\", not \"" + tool + "\"");
        }
        String scenario = f.text(root, "", "scenario");
        int messageBytes = (int) f.whole(root, "", "messageBytes");
        JsonNode array = f.array(root, "", "points");
        if (array.isEmpty()) {
            throw f.fail("points", "is empty: nothing was measured");
        }
        List<BridgePoint> points = new ArrayList<>();
        for (int i = 0; i < array.size(); i++) {
            String at = "points[" + i + "]";
            JsonNode p = array.get(i);
            long connections = f.whole(p, at, "connections");
            double target = f.number(p, at, "targetMessagesPerSecond");
            double delivered = f.number(p, at, "deliveredMessagesPerSecond");
            long failed = f.optional(p, "failedConnections").isPresent() ? f.whole(p, at, "failedConnections") : 0;
            List<String> reasons = new ArrayList<>();
            if (target > 0 && delivered < DELIVERED_FRACTION * target) {
                reasons.add(String.format("delivered %.1f %% of %,.0f msg/s", 100 * delivered / target, target));
            }
            if (failed > 0) {
                reasons.add(failed + " connections failed");
            }
            OptionalLong rss = f.optional(p, "rssBytes").isPresent() ? OptionalLong.of(f.whole(p, at, "rssBytes")) : OptionalLong.empty();
            points.add(new BridgePoint(file, scenario, messageBytes, connections, target, delivered, f.number(p, at, "cpuMillicores"), rss, failed,
                    f.optionalNumber(p, at, "deliveryLatencyMeanMs"), f.optionalNumber(p, at, "deliveryLatencyP99Ms"), reasons));
        }
        return points;
    }
}
