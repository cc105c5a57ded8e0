package io.sluice.sizing.bridge;

import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;

/**
 * One measured load level of the WebSocket bridge: so many connected users, so many messages per second delivered
 * to them in total, and what the bridge process used.
 *
 * @param rssBytes             the bridge's peak RSS; absent when the point did not record it (memory cannot be
 *                             sized from it, CPU and latency still can)
 * @param deliveryLatencyMeanMs mean of scheduled send → frame read, when messages were delivered
 * @param deliveryLatencyP99Ms 99th percentile of the same
 * @param reasons              why the point counts as saturated; empty when the bridge kept up
 */
public record BridgePoint(Path file,
                          String scenario,
                          int messageBytes,
                          long connections,
                          double targetMessagesPerSecond,
                          double deliveredMessagesPerSecond,
                          double cpuMillicores,
                          OptionalLong rssBytes,
                          long failedConnections,
                          Optional<Double> deliveryLatencyMeanMs,
                          Optional<Double> deliveryLatencyP99Ms,
                          List<String> reasons) {

    public boolean saturated() {
        return !reasons.isEmpty();
    }

    public double kConnections() {
        return connections / 1000.0;
    }

    public double kMessagesPerSecond() {
        return deliveredMessagesPerSecond / 1000.0;
    }

    /** Messages per second each connection was sent: the load's shape, 0 for idle connections. */
    public double targetMessagesPerConnection() {
        return connections == 0 ? 0 : targetMessagesPerSecond / connections;
    }
}
