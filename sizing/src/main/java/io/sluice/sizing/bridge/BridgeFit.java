package io.sluice.sizing.bridge;

import java.util.List;

import io.sluice.sizing.fit.Estimate;
import io.sluice.sizing.fit.LinearFit;

/**
 * The bridge's CPU and memory as functions of its load, fitted to the healthy points:
 * <pre>
 * millicores = a + b × (1000 connections) + c × (1000 messages/s delivered)
 * memory MiB = m0 + m1 × (1000 connections)
 * </pre>
 * Connections cost CPU even when idle (heartbeats, timers) and memory (buffers, session state); messages cost CPU
 * to encode and write to every subscriber.
 */
public record BridgeFit(String scenario, LinearFit cpu, LinearFit memory, List<BridgePoint> points) {

    public static final List<String> CPU_TERMS = List.of("baseline", "per 1000 connections", "per 1000 msg/s delivered");
    public static final List<String> MEMORY_TERMS = List.of("baseline MiB", "MiB per 1000 connections");

    public Estimate millicores(double connections, double messagesPerSecond) {
        double[] row = { 1, connections / 1000, messagesPerSecond / 1000 };
        return new Estimate(cpu.predict(row), cpu.predictionHalfWidth95(row));
    }

    public Estimate memoryMiB(double connections) {
        double[] row = { 1, connections / 1000 };
        return new Estimate(memory.predict(row), memory.predictionHalfWidth95(row));
    }

    /** Memory per connection in KiB: the memory slope. */
    public Estimate kibPerConnection() {
        return new Estimate(memory.coefficient(1) * 1024 / 1000, memory.halfWidth95(1) * 1024 / 1000);
    }

    /**
     * Users one core serves when each receives {@code messagesPerUser} per second: (1000 − a) / (b + c × rate), in
     * thousands of users, times 1000.
     */
    public Estimate usersPerCore(double messagesPerUser) {
        double[] slope = { 0, 1, messagesPerUser };
        double perKUsers = cpu.predict(slope);
        double headroom = 1000 - cpu.coefficient(0);
        double[] gradient = new double[3];
        for (int i = 0; i < 3; i++) {
            gradient[i] = 1000 * (-(i == 0 ? 1 : 0) / perKUsers - slope[i] * headroom / (perKUsers * perKUsers));
        }
        return new Estimate(1000 * headroom / perKUsers, cpu.halfWidth95Of(gradient));
    }

    public double maxMeasuredConnections() {
        return points.stream().mapToLong(BridgePoint::connections).max().orElse(0);
    }

    public double maxMeasuredMessagesPerSecond() {
        return points.stream().mapToDouble(BridgePoint::deliveredMessagesPerSecond).max().orElse(0);
    }
}
