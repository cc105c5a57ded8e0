package io.sluice.results.bridge;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.OptionalDouble;
import java.util.OptionalLong;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;

import io.sluice.results.read.JsonFields;
import io.sluice.results.read.OmbResultReader;

/**
 * {@code SCENARIO.bridge.json}, the bridge's run-result format (schema in docs/sizing.md): one file gathers the points
 * of a scenario's runs, each a load level and what the bridge used. {@code bench bridge --out} appends to it,
 * {@code sluice size bridge} reads it; this class is the one definition both use. In: a directory and a point, or a
 * file; out: the file written, or its contents checked field by field.
 *
 * @param scenario     the curve the points belong to
 * @param messageBytes the payload size of every point
 * @param points       in the order they were added
 */
public record BridgeResultFile(String scenario, int messageBytes, List<Point> points) {

    /** The {@code tool} every such file names. */
    public static final String TOOL = "sluice-bench-bridge";
    public static final String SUFFIX = ".bridge.json";

    private static final ObjectMapper JSON = new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT);

    /**
     * One measured load level.
     *
     * @param rssBytes the bridge's peak RSS, absent when the point did not record it
     * @param deliveryLatencyMeanMs mean of scheduled send to frame read, present when messages were delivered
     */
    public record Point(long connections, double targetMessagesPerSecond, double deliveredMessagesPerSecond, double cpuMillicores,
                        OptionalLong rssBytes, long failedConnections, Optional<Double> deliveryLatencyMeanMs, Optional<Double> deliveryLatencyP99Ms) {
    }

    /**
     * Adds {@code point} to {@code DIR/SCENARIO.bridge.json}, creating the file (with the machine's cores and CPU limit)
     * when it is the first; the file is rewritten whole.
     *
     * @return the file written
     * @throws IllegalArgumentException when the file holds another tool's points or another payload size's
     */
    public static Path append(Path dir, String scenario, int messageBytes, int cores, OptionalDouble cpuLimitCores, Point point) throws IOException {
        Files.createDirectories(dir);
        Path file = dir.resolve(scenario + SUFFIX);
        ObjectNode root;
        if (Files.exists(file)) {
            root = (ObjectNode) JSON.readTree(file.toFile());
            if (!TOOL.equals(root.path("tool").asText()) || root.path("messageBytes").asInt() != messageBytes) {
                throw new IllegalArgumentException(file + " holds another tool's or another payload size's points; use another --scenario");
            }
        } else {
            root = JSON.createObjectNode()
                    .put("tool", TOOL)
                    .put("scenario", scenario)
                    .put("messageBytes", messageBytes)
                    .put("cores", cores);
            if (cpuLimitCores.isPresent()) {
                root.put("cpuLimitCores", cpuLimitCores.getAsDouble());
            } else {
                root.putNull("cpuLimitCores");
            }
            root.putArray("points");
        }
        ObjectNode written = ((ArrayNode) root.get("points")).addObject()
                .put("connections", point.connections())
                .put("targetMessagesPerSecond", point.targetMessagesPerSecond())
                .put("deliveredMessagesPerSecond", point.deliveredMessagesPerSecond())
                .put("cpuMillicores", point.cpuMillicores());
        point.rssBytes().ifPresent(rss -> written.put("rssBytes", rss));
        written.put("failedConnections", point.failedConnections());
        point.deliveryLatencyMeanMs().ifPresent(ms -> written.put("deliveryLatencyMeanMs", ms));
        point.deliveryLatencyP99Ms().ifPresent(ms -> written.put("deliveryLatencyP99Ms", ms));
        JSON.writeValue(file.toFile(), root);
        return file;
    }

    /**
     * The file's scenario and points.
     *
     * @throws MalformedResultException naming the file and the field that is missing or mistyped
     */
    public static BridgeResultFile read(Path file) {
        JsonNode root = OmbResultReader.parse(file);
        JsonFields f = new JsonFields(file);
        String tool = f.text(root, "", "tool");
        if (!tool.equals(TOOL)) {
            throw f.fail("tool", "must be \"" + TOOL + "\", not \"" + tool + "\"");
        }
        String scenario = f.text(root, "", "scenario");
        int messageBytes = (int) f.whole(root, "", "messageBytes");
        JsonNode array = f.array(root, "", "points");
        if (array.isEmpty()) {
            throw f.fail("points", "is empty: nothing was measured");
        }
        List<Point> points = new ArrayList<>();
        for (int i = 0; i < array.size(); i++) {
            String at = "points[" + i + "]";
            JsonNode p = array.get(i);
            long connections = f.whole(p, at, "connections");
            double target = f.number(p, at, "targetMessagesPerSecond");
            double delivered = f.number(p, at, "deliveredMessagesPerSecond");
            long failed = f.optional(p, "failedConnections").isPresent() ? f.whole(p, at, "failedConnections") : 0;
            OptionalLong rss = f.optional(p, "rssBytes").isPresent() ? OptionalLong.of(f.whole(p, at, "rssBytes")) : OptionalLong.empty();
            points.add(new Point(connections, target, delivered, f.number(p, at, "cpuMillicores"), rss, failed,
                    f.optionalNumber(p, at, "deliveryLatencyMeanMs"), f.optionalNumber(p, at, "deliveryLatencyP99Ms")));
        }
        return new BridgeResultFile(scenario, messageBytes, List.copyOf(points));
    }
}
