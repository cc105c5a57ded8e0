package io.sluice.sizing.bridge;

import java.nio.file.Path;
import java.util.List;

/**
 * One measured load level of the WebSocket bridge: so many connected users, so many messages per second delivered
 * to them in total, and what the bridge process used.
 *
 * @param reasons why the point counts as saturated; empty when the bridge kept up
 */
public record BridgePoint(Path file,
                          String scenario,
                          int messageBytes,
                          long connections,
                          double targetMessagesPerSecond,
                          double deliveredMessagesPerSecond,
                          double cpuMillicores,
                          long rssBytes,
                          long failedConnections,
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
}
