package io.sluice.sizing.plan;

import java.util.List;
import java.util.Locale;
import java.util.OptionalLong;

import io.sluice.sizing.deploy.JvmBudget;
import io.sluice.sizing.fit.Estimate;

/**
 * What to deploy: {@code podsForLoad} pods carry the traffic, one more keeps it carried while any one is down (N+1).
 *
 * @param millicoresPerPod      CPU request and limit per pod (equal, so the throughput ceiling is fixed)
 * @param needPerPod            the fitted CPU one pod needs for its share, before headroom
 * @param memoryBytesPerPod     memory request and limit per pod: the JVM's budget, or the peak RSS measured times the
 *                              headroom if that is more
 * @param jvm                   the JVM options the pod runs with, and the budget they add up to
 * @param warnings              what the reader should know before trusting the numbers
 */
public record PodPlan(TrafficSpec traffic,
                      int podsForLoad,
                      int replicas,
                      int millicoresPerPod,
                      Estimate needPerPod,
                      double trafficPerPodMBps,
                      long memoryBytesPerPod,
                      OptionalLong peakMeasuredRssBytes,
                      JvmBudget jvm,
                      List<String> warnings) {

    /** Where the memory figure comes from, in one line for the reports. */
    public String memoryExplained() {
        String measured = peakMeasuredRssBytes.isPresent()
                ? String.format(Locale.ROOT, "; peak RSS measured %dMi x%.2f headroom = %dMi", peakMeasuredRssBytes.getAsLong() >> 20,
                        traffic.headroom(), ProxyPlanner.roundUp(peakMeasuredRssBytes.getAsLong() * traffic.headroom(), ProxyPlanner.ROUND_MEMORY_BYTES) >> 20)
                : "; the runs recorded no RSS";
        return "the JVM's budget: " + jvm.formula() + measured + " => " + (memoryBytesPerPod >> 20) + "Mi per pod";
    }
}
