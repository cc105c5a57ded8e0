package io.sluice.sizing.bridge;

import java.util.List;

import io.sluice.sizing.fit.LeastSquares;

/** Fits a bridge scenario's healthy points; see {@link BridgeFit} for the model. */
public final class BridgeFitter {

    private BridgeFitter() {
    }

    /**
     * @throws IllegalArgumentException with too few healthy points, a healthy point without its RSS, or when
     *                                  connections and messages rose together at every point so their costs cannot be
     *                                  told apart (vary them independently)
     */
    public static BridgeFit fit(String scenario, List<BridgePoint> all) {
        List<BridgePoint> points = all.stream().filter(p -> !p.saturated()).toList();
        if (points.size() < 4) {
            throw new IllegalArgumentException("bridge scenario '" + scenario + "' needs at least 4 healthy points to fit CPU on connections"
                    + " and messages; has " + points.size());
        }
        long withoutMemory = points.stream().filter(p -> p.rssBytes().isEmpty()).count();
        if (withoutMemory > 0) {
            throw new IllegalArgumentException("bridge scenario '" + scenario + "': " + withoutMemory + " of " + points.size()
                    + " healthy points have no rssBytes, so memory per connection cannot be fitted; measure with"
                    + " `bench bridge --out` (it records the bridge's RSS)");
        }
        double[][] cpuRows = new double[points.size()][];
        double[][] memoryRows = new double[points.size()][];
        double[] cpu = new double[points.size()];
        double[] memory = new double[points.size()];
        for (int i = 0; i < points.size(); i++) {
            BridgePoint p = points.get(i);
            cpuRows[i] = new double[] { 1, p.kConnections(), p.kMessagesPerSecond() };
            memoryRows[i] = new double[] { 1, p.kConnections() };
            cpu[i] = p.cpuMillicores();
            memory[i] = p.rssBytes().getAsLong() / (double) (1 << 20);
        }
        try {
            return new BridgeFit(scenario, LeastSquares.fit(BridgeFit.CPU_TERMS, cpuRows, cpu),
                    LeastSquares.fit(BridgeFit.MEMORY_TERMS, memoryRows, memory), points);
        } catch (LeastSquares.CollinearException e) {
            throw new IllegalArgumentException("bridge scenario '" + scenario + "': " + e.getMessage()
                    + "; measure some points with many idle connections and some with few busy ones", e);
        }
    }
}
