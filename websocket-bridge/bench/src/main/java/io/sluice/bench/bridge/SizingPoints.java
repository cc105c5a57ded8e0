package io.sluice.bench.bridge;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.OptionalDouble;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;

import io.sluice.cli.UsageException;

/**
 * Adds a run as one point to {@code DIR/SCENARIO.bridge.json}, the input of {@code sluice size bridge} (schema in
 * docs/sizing.md, read by {@code io.sluice.sizing.bridge.BridgeResultReader}). One file gathers the runs of a
 * scenario, so a series of runs with different connection counts and rates becomes something the sizing can fit.
 */
final class SizingPoints {

    static final String TOOL = "sluice-bench-bridge";
    static final String SUFFIX = ".bridge.json";

    private static final ObjectMapper JSON = new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT);

    private SizingPoints() {
    }

    /** @return the file written */
    static Path append(Path dir, String scenario, BenchResult r, int cores, OptionalDouble cpuLimitCores) throws IOException {
        if (Double.isNaN(r.bridgeCores()) || r.rssWithConnectionsBytes() < 0) {
            throw new UsageException("--out needs the bridge's CPU and memory: give --bridge-pid with --bridge");
        }
        Files.createDirectories(dir);
        Path file = dir.resolve(scenario + SUFFIX);
        ObjectNode root;
        if (Files.exists(file)) {
            root = (ObjectNode) JSON.readTree(file.toFile());
            if (!TOOL.equals(root.path("tool").asText()) || root.path("messageBytes").asInt() != r.payloadBytes()) {
                throw new UsageException(file + " holds another tool's or another payload size's points; use another --scenario");
            }
        } else {
            root = JSON.createObjectNode()
                    .put("tool", TOOL)
                    .put("scenario", scenario)
                    .put("messageBytes", r.payloadBytes())
                    .put("cores", cores);
            if (cpuLimitCores.isPresent()) {
                root.put("cpuLimitCores", cpuLimitCores.getAsDouble());
            } else {
                root.putNull("cpuLimitCores");
            }
            root.putArray("points");
        }
        ObjectNode point = ((ArrayNode) root.get("points")).addObject()
                .put("connections", r.connectionsSubscribed())
                .put("targetMessagesPerSecond", r.expectedMsgsPerSecondOut())
                .put("deliveredMessagesPerSecond", r.msgsPerSecondOut())
                .put("cpuMillicores", r.bridgeCores() * 1000)
                .put("rssBytes", Math.max(r.rssWithConnectionsBytes(), r.rssEndBytes()))
                .put("failedConnections", r.connectFailures() + r.serverCloses());
        if (r.messagesDelivered() > 0) {
            point.put("deliveryLatencyMeanMs", r.latencyMeanMs());
            point.put("deliveryLatencyP99Ms", r.latencyP99Ms());
        }
        JSON.writeValue(file.toFile(), root);
        return file;
    }
}
