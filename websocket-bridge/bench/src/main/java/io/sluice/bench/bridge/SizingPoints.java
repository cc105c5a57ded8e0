package io.sluice.bench.bridge;

import java.io.IOException;
import java.nio.file.Path;
import java.util.Optional;
import java.util.OptionalDouble;
import java.util.OptionalLong;

import io.sluice.cli.UsageException;
import io.sluice.results.bridge.BridgeResultFile;

/**
 * Adds a run as one point to {@code DIR/SCENARIO.bridge.json}, the input of {@code sluice size bridge}
 * ({@link BridgeResultFile}, the format both share). One file gathers the runs of a scenario, so a series of runs with
 * different connection counts and rates becomes something the sizing can fit.
 */
final class SizingPoints {

    private SizingPoints() {
    }

    /** @return the file written */
    static Path append(Path dir, String scenario, BenchResult r, int cores, OptionalDouble cpuLimitCores) throws IOException {
        if (Double.isNaN(r.bridgeCores()) || r.rssWithConnectionsBytes() < 0) {
            throw new UsageException("--out needs the bridge's CPU and memory: give --bridge-pid with --bridge");
        }
        boolean delivered = r.messagesDelivered() > 0;
        BridgeResultFile.Point point = new BridgeResultFile.Point(r.connectionsSubscribed(), r.expectedMsgsPerSecondOut(), r.msgsPerSecondOut(),
                r.bridgeCores() * 1000, OptionalLong.of(Math.max(r.rssWithConnectionsBytes(), r.rssEndBytes())), r.connectFailures() + r.serverCloses(),
                delivered ? Optional.of(r.latencyMeanMs()) : Optional.empty(), delivered ? Optional.of(r.latencyP99Ms()) : Optional.empty());
        try {
            return BridgeResultFile.append(dir, scenario, r.payloadBytes(), cores, cpuLimitCores, point);
        } catch (IllegalArgumentException e) {
            throw new UsageException(e.getMessage());
        }
    }
}
