package io.sluice.sizing.report;

import java.util.List;
import java.util.Locale;

import io.sluice.sizing.deploy.DeploymentYaml;
import io.sluice.sizing.deploy.DeployedComponent;
import io.sluice.sizing.deploy.HelmValues;
import io.sluice.sizing.plan.PodPlan;

/**
 * The proxy's Deployment for a sizing: complete and valid (selector, image, ports, probes, JVM options), with the
 * replicas, CPU and memory the sizing decided and the JVM options that memory was budgeted for. It has the shape of
 * {@code proxy/app/kubernetes/base/sluice-proxy-deployment.yaml}, which is this output for the traffic
 * docs/kubernetes.md states. {@link #helmValues} gives the same numbers as values of the Helm chart.
 */
public final class ResourcesYaml {

    private ResourcesYaml() {
    }

    public static String of(String scenario, PodPlan plan, String evidence) {
        return DeploymentYaml.of(DeployedComponent.PROXY, header(scenario, plan, evidence), plan.replicas(), plan.millicoresPerPod(),
                plan.memoryBytesPerPod(), plan.jvm());
    }

    /** The chart's {@code proxy.replicas}, {@code proxy.javaOpts} and {@code proxy.resources} for the same plan. */
    public static String helmValues(String scenario, PodPlan plan, String evidence) {
        return HelmValues.of(DeployedComponent.PROXY, header(scenario, plan, evidence), plan.replicas(), plan.millicoresPerPod(),
                plan.memoryBytesPerPod(), plan.jvm());
    }

    private static List<String> header(String scenario, PodPlan plan, String evidence) {
        return List.of(
                "sluice size, scenario " + scenario + ": " + plan.traffic().describe(),
                String.format(Locale.ROOT, "%d pod(s) carry the load at %.1f MB/s each; +1 so any one can fail (N+1). Evidence: %s",
                        plan.podsForLoad(), plan.trafficPerPodMBps(), evidence),
                "memory: " + plan.memoryExplained());
    }
}
