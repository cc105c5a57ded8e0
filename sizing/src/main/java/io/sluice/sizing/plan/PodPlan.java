package io.sluice.sizing.plan;

import java.util.List;
import java.util.OptionalLong;

import io.sluice.sizing.fit.Estimate;

/**
 * What to deploy: {@code podsForLoad} pods carry the traffic, one more keeps it carried while any one is down (N+1).
 *
 * @param millicoresPerPod      CPU request and limit per pod (equal, so the throughput ceiling is fixed)
 * @param needPerPod            the fitted CPU one pod needs for its share, before headroom
 * @param memoryBytesPerPod     memory request and limit per pod; empty when no run recorded memory
 * @param warnings              what the reader should know before trusting the numbers
 */
public record PodPlan(TrafficSpec traffic,
                      int podsForLoad,
                      int replicas,
                      int millicoresPerPod,
                      Estimate needPerPod,
                      double trafficPerPodMBps,
                      OptionalLong memoryBytesPerPod,
                      OptionalLong peakMeasuredRssBytes,
                      List<String> warnings) {
}
