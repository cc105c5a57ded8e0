package io.sluice.sizing.plan;

import java.util.ArrayList;
import java.util.List;
import java.util.OptionalLong;

import io.sluice.sizing.deploy.JvmBudget;
import io.sluice.sizing.deploy.MeasuredJvm;
import io.sluice.sizing.fit.CpuFit;
import io.sluice.sizing.fit.Estimate;
import io.sluice.sizing.points.TrafficPoint;

/**
 * Turns a CPU fit into pods: the fewest pods whose share of the traffic, at the upper end of the fit's 95 %
 * interval and times the headroom, fits in the largest pod allowed; then one more. Each pod pays the baseline, so
 * splitting the traffic over more pods costs CPU: this is why the count is searched rather than divided.
 */
public final class ProxyPlanner {

    static final int ROUND_MILLICORES = 100;
    static final long ROUND_MEMORY_BYTES = 64L << 20;
    private static final int MAX_PODS = 10_000;

    private ProxyPlanner() {
    }

    public static PodPlan plan(CpuFit fit, List<TrafficPoint> measured, TrafficSpec traffic) {
        List<String> warnings = new ArrayList<>();
        double total = traffic.totalMBps();
        int pods = 1;
        Estimate need = fit.millicores(total, traffic.messageBytes());
        int perPod = roundUp(need.upper() * traffic.headroom());
        while (perPod > traffic.podMaxMillicores()) {
            if (++pods > MAX_PODS) {
                throw new IllegalArgumentException(String.format("even %,d pods cannot carry %.1f MB/s within %d millicores each: "
                        + "the fitted baseline alone is %.0f mc", MAX_PODS, total, traffic.podMaxMillicores(), fit.baselineMillicores().value()));
            }
            need = fit.millicores(total / pods, traffic.messageBytes());
            perPod = roundUp(need.upper() * traffic.headroom());
        }
        double perPodTraffic = total / pods;
        if (perPodTraffic > fit.maxMeasuredMBps()) {
            warnings.add(String.format("each pod would carry %.1f MB/s, more than the %.1f MB/s measured: the fit is extrapolated."
                    + " Measure higher rates, or lower --pod-max-millicores", perPodTraffic, fit.maxMeasuredMBps()));
        }
        if (fit.points().stream().mapToInt(TrafficPoint::messageBytes).noneMatch(size -> size == traffic.messageBytes())) {
            warnings.add("no run used " + traffic.messageBytes() + "-byte messages: the cost per MB/s at that size comes from the fit's model ("
                    + fit.model().formula() + ")");
        }
        OptionalLong peakRss = measured.stream()
                .filter(p -> !p.saturated() && p.peakRssBytes().isPresent())
                .mapToLong(p -> p.peakRssBytes().getAsLong())
                .max();
        // The pod runs the JVM the fitted runs measured; its limit holds that JVM whole (JvmBudget), and is never below
        // what the runs were seen to use, with headroom.
        MeasuredJvm measuredJvm = MeasuredJvm.of(fit.points());
        JvmBudget jvm = measuredJvm.budget(perPod);
        warnings.addAll(measuredJvm.notes());
        long memory = jvm.limitBytes();
        if (peakRss.isPresent()) {
            memory = Math.max(memory, roundUp(peakRss.getAsLong() * traffic.headroom(), ROUND_MEMORY_BYTES));
        } else {
            warnings.add("no run recorded the proxy's memory: the limit is the JVM's budget alone; check it against your own observation");
        }
        return new PodPlan(traffic, pods, pods + 1, perPod, need, perPodTraffic, memory, peakRss, jvm, warnings);
    }

    static int roundUp(double millicores) {
        return (int) roundUp(Math.max(millicores, ROUND_MILLICORES), ROUND_MILLICORES);
    }

    static long roundUp(double value, long unit) {
        return (long) Math.ceil(value / unit) * unit;
    }
}
