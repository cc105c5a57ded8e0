package io.sluice.sizing.deploy;

import java.util.List;
import java.util.Locale;
import java.util.stream.Collectors;

/**
 * What a sizing decides, as values of the Helm chart ({@code kubernetes/helm/sluice}): the component's replicas, JVM
 * options and resources, under its key ({@code proxy} or {@code bridge}), for {@code helm install -f}. The same numbers
 * as the {@link DeploymentYaml} written beside it; the app's HelmChartTest renders the chart with this file and checks
 * that its Deployment equals that one.
 */
public final class HelmValues {

    private HelmValues() {
    }

    /**
     * @param header comment lines (without {@code #}) saying what the sizing was for
     */
    public static String of(DeployedComponent component, List<String> header, int replicas, int millicores, long memoryBytes, JvmBudget jvm) {
        String comments = header.stream().map(line -> "# " + line + "\n").collect(Collectors.joining());
        String memory = (memoryBytes >> 20) + "Mi";
        return comments + String.format(Locale.ROOT, """
                # For the Helm chart: helm upgrade --install sluice kubernetes/helm/sluice -f your-values.yaml -f THIS_FILE
                %1$s:
                  replicas: %2$d
                  javaOpts: "%3$s"
                  resources:
                    requests:
                      cpu: "%4$dm"
                      memory: "%5$s"
                    limits:
                      cpu: "%4$dm"
                      memory: "%5$s"
                """, component.subcommand(), replicas, String.join(" ", jvm.options()), millicores, memory);
    }
}
