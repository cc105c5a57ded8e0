package io.sluice.sizing.bridge;

import java.util.ArrayList;
import java.util.List;

import io.sluice.sizing.deploy.JvmBudget;
import io.sluice.sizing.fit.Estimate;

/**
 * Bridge pods for an audience: the fewest pods whose share of connections and messages fits one pod's CPU and
 * memory (upper 95 % bound of the fit, times headroom), plus one (N+1). The pod's JVM gets the largest heap whose
 * {@link JvmBudget} fits that memory (at least 256 MiB, which may raise the memory of a small pod), with the collector
 * {@code bench bridge} measures with.
 */
public record BridgePlan(AudienceSpec audience, int podsForLoad, int replicas, int millicoresPerPod, long memoryBytesPerPod,
                         Estimate cpuNeedPerPod, Estimate memoryNeedPerPodMiB, JvmBudget jvm, List<String> warnings) {

    private static final int MAX_PODS = 100_000;
    /** {@code bench bridge}'s {@code --bridge-jvm} default. */
    static final String MEASURED_COLLECTOR = "-XX:+UseParallelGC";

    public static BridgePlan plan(BridgeFit fit, AudienceSpec audience) {
        for (int pods = 1; pods <= MAX_PODS; pods++) {
            double connections = (double) audience.users() / pods;
            double messages = audience.messagesPerSecond() / pods;
            Estimate cpu = fit.millicores(connections, messages);
            Estimate memory = fit.memoryMiB(connections);
            int millicores = (int) (Math.ceil(Math.max(100, cpu.upper() * audience.headroom()) / 100) * 100);
            long measured = (long) Math.ceil(memory.upper() * audience.headroom() / 64) * (64L << 20);
            JvmBudget jvm = JvmBudget.forPodMemory(measured, MEASURED_COLLECTOR, Math.max(2, (millicores + 999) / 1000));
            long bytes = Math.max(measured, jvm.limitBytes());
            if (millicores <= audience.podMaxMillicores() && bytes <= audience.podMaxMemoryBytes()) {
                List<String> warnings = new ArrayList<>();
                if (connections > fit.maxMeasuredConnections() || messages > fit.maxMeasuredMessagesPerSecond()) {
                    warnings.add(String.format("each pod would hold %,.0f connections and deliver %,.0f msg/s; the most measured was %,.0f and %,.0f:"
                                    + " the fit is extrapolated", connections, messages, fit.maxMeasuredConnections(), fit.maxMeasuredMessagesPerSecond()));
                }
                return new BridgePlan(audience, pods, pods + 1, millicores, bytes, cpu, memory, jvm, warnings);
            }
        }
        throw new IllegalArgumentException("no pod count up to " + MAX_PODS + " fits " + audience.podMaxMillicores() + " mc and "
                + (audience.podMaxMemoryBytes() >> 20) + " MiB per pod");
    }
}
