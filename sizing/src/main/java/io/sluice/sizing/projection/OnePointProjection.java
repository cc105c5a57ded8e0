package io.sluice.sizing.projection;

import java.util.List;

import io.sluice.sizing.bridge.BridgeFit;
import io.sluice.sizing.fit.Estimate;
import io.sluice.sizing.fit.LinearFit;

/**
 * A {@link BridgeFit} from one fan-out run, for projecting a seed's scale beyond this machine's. With one point the
 * sizing's model (CPU on connections and messages, memory on connections) cannot be fitted; two assumptions stand in:
 * CPU is linear in messages delivered with no baseline (the connections' idle cost folded into the per-message
 * figure), and memory is linear in connections (the bridge's RSS before them, plus what they added). The only error
 * one run can show is its own noise: the spread of the measured seconds' CPU gives the per-message coefficient a
 * standard error (Student's t over the seconds); memory has two readings and no error. Neither says whether cost stays
 * linear at 50 times the scale: that needs points measured there.
 *
 * @param perSecondCores the bridge's cores in each measured second
 */
public record OnePointProjection(double coresMeasured, double messagesPerSecond, List<Double> perSecondCores, long rssBeforeBytes, long rssWithBytes,
                          int connections) {

    /** The model as the sizing writes it, so its estimates come from the sizing's own code. */
    public BridgeFit fit() {
        double kMessages = messagesPerSecond / 1000;
        double perKMessages = coresMeasured * 1000 / kMessages;
        int n = perSecondCores.size();
        double standardError = Double.NaN;
        if (n >= 2) {
            double mean = perSecondCores.stream().mapToDouble(Double::doubleValue).average().orElse(0);
            double variance = perSecondCores.stream().mapToDouble(c -> (c - mean) * (c - mean)).sum() / (n - 1);
            standardError = mean == 0 ? Double.NaN : perKMessages * Math.sqrt(variance / n) / mean;
        }
        double se = Double.isNaN(standardError) ? 0 : standardError;
        LinearFit cpu = new LinearFit(BridgeFit.CPU_TERMS, new double[] {0, 0, perKMessages}, new double[] {0, 0, se},
                new double[][] {{0, 0, 0}, {0, 0, 0}, {0, 0, se * se}}, Double.NaN, Double.NaN, n, Math.max(1, n - 1),
                new double[0], new double[0]);
        double mib = 1 << 20;
        double perKConnections = (rssWithBytes - rssBeforeBytes) / mib / (connections / 1000.0);
        LinearFit memory = new LinearFit(BridgeFit.MEMORY_TERMS, new double[] {rssBeforeBytes / mib, perKConnections}, new double[] {0, 0},
                new double[][] {{0, 0}, {0, 0}}, Double.NaN, Double.NaN, 2, 1, new double[0], new double[0]);
        return new BridgeFit("one fan-out run", cpu, memory, List.of());
    }

    /** Whether the CPU estimate has an error at all (at least two measured seconds). */
    public boolean hasCpuError() {
        return perSecondCores.size() >= 2;
    }

    public Estimate cores(long clients, double messagesPerClient) {
        Estimate mc = fit().millicores(clients, clients * messagesPerClient);
        return new Estimate(mc.value() / 1000, mc.halfWidth95() / 1000);
    }

    public Estimate memoryGiB(long clients) {
        Estimate mib = fit().memoryMiB(clients);
        return new Estimate(mib.value() / 1024, mib.halfWidth95() / 1024);
    }

    public String describe(long clients, double messagesPerClient) {
        Estimate c = cores(clients, messagesPerClient);
        return "%,d clients: %.1f%s cores, %.1f GiB".formatted(clients, c.value(), hasCpuError() ? " ± %.1f".formatted(c.halfWidth95()) : " (error unknown)",
                memoryGiB(clients).value());
    }
}
