package io.sluice.sizing.report;

import java.util.Locale;

import io.sluice.sizing.plan.PodPlan;

/**
 * The part of a Kubernetes Deployment a sizing decides: replicas, and CPU and memory with requests equal to limits
 * (Kroxylicious's advice: a fixed CPU budget makes the throughput ceiling deterministic).
 */
public final class ResourcesYaml {

    private ResourcesYaml() {
    }

    public static String of(String scenario, PodPlan plan, String evidence) {
        String traffic = plan.traffic().describe();
        boolean measured = plan.memoryBytesPerPod().isPresent();
        String memory = measured ? Figures.mib(plan.memoryBytesPerPod().getAsLong()) : "512Mi";
        String memoryNote = measured ? "" : "  # not measured: set from your own observation";
        return String.format(Locale.ROOT, """
                # sluice size, scenario %s: %s
                # %d pod(s) carry the load at %.1f MB/s each; +1 so any one can fail (N+1). Evidence: %s
                apiVersion: apps/v1
                kind: Deployment
                metadata:
                  name: sluice-proxy
                spec:
                  replicas: %d
                  template:
                    spec:
                      containers:
                        - name: sluice-proxy
                          resources:
                            requests:
                              cpu: "%dm"
                              memory: "%s"%s
                            limits:
                              cpu: "%dm"
                              memory: "%s"%s
                """, scenario, traffic, plan.podsForLoad(), plan.trafficPerPodMBps(), evidence, plan.replicas(),
                plan.millicoresPerPod(), memory, memoryNote, plan.millicoresPerPod(), memory, memoryNote);
    }
}
