package io.sluice.sizing.deploy;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

import io.sluice.results.read.RunInfo;
import io.sluice.sizing.points.TrafficPoint;

/**
 * The JVM the fitted runs measured: heap, collector and processors as their {@code run.json} records them, so the pod
 * runs the proxy as it was measured. What the runs do not record falls back to what the proxy would have had.
 *
 * @param notes what was not recorded, or not the same in every run
 */
public record MeasuredJvm(long heapBytes, String collector, int processors, List<String> notes) {

    /**
     * The heap of runs that recorded no {@code -Xmx}: {@code bin/sluice}'s default when those runs were taken. The
     * launcher now defaults to {@code -XX:MaxRAMPercentage=50}, a share of the machine that a run does not record, so
     * runs should name their heap ({@code bench proxy --proxy-heap}, {@code omb --proxy-heap} do).
     */
    public static final long LAUNCHER_DEFAULT_HEAP = 1L << 30;

    public static MeasuredJvm of(List<TrafficPoint> fitted) {
        List<RunInfo> runs = fitted.stream().filter(TrafficPoint::hasProxy).flatMap(p -> p.run().run().stream()).toList();
        List<String> notes = new ArrayList<>();
        List<Long> heaps = runs.stream().map(r -> JvmBudget.heapOption(r.proxyJvmOptions())).flatMap(Optional::stream).distinct().toList();
        long heap = heaps.stream().mapToLong(Long::longValue).max().orElse(LAUNCHER_DEFAULT_HEAP);
        if (heaps.isEmpty()) {
            notes.add("no run recorded the proxy's -Xmx: the pod gets 1g, the launcher's default when such runs were taken");
        } else if (heaps.size() > 1) {
            notes.add("the runs used different heaps; the pod gets the largest, " + (heap >> 20) + "m");
        }
        int processors = runs.stream()
                .mapToInt(r -> r.cpuLimitCores().map(limit -> (int) Math.ceil(limit)).orElse(r.cores()))
                .max().orElse(2);
        List<String> collectors = runs.stream().map(r -> JvmBudget.collectorOption(r.proxyJvmOptions())).flatMap(Optional::stream)
                .distinct().toList();
        String collector;
        if (collectors.size() == 1) {
            collector = collectors.get(0);
        } else if (collectors.isEmpty()) {
            // The JVM's own choice on the measuring machine: G1 on 2 or more processors (and 1792 MB), else Serial.
            collector = processors >= 2 ? "-XX:+UseG1GC" : "-XX:+UseSerialGC";
            notes.add("no run named its collector: the pod uses " + collector + ", what the JVM chose on the measuring machine");
        } else {
            collector = collectors.get(0);
            notes.add("the runs used different collectors " + collectors + "; the pod uses " + collector + ": measure one at a time");
        }
        return new MeasuredJvm(heap, collector, processors, List.copyOf(notes));
    }

    /**
     * The budget for a pod with {@code millicores}: as many processors as the runs saw, or as the CPU limit rounds up
     * to if that is more, so neither the collector's nor Netty's thread counts shrink below what was measured.
     */
    public JvmBudget budget(int millicores) {
        return new JvmBudget(heapBytes, collector, Math.max(processors, (millicores + 999) / 1000));
    }
}
