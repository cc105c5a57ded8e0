package io.sluice.bench.targets;

import java.util.List;
import java.util.stream.Collectors;

/**
 * The demo's proxy configuration: one virtual cluster, passthrough, one port-per-broker gateway. In: the broker's
 * bootstrap, the proxy's and its management port; out: the YAML. Shared by {@code sluice demo} and the benchmarks that
 * measure "the demo's passthrough proxy" ({@code bench proxy} without targets, {@code bench idle}), and with filters
 * added, by {@code bench quotas}.
 */
public final class DemoProxyConfig {

    private DemoProxyConfig() {
    }

    public static String yaml(String kafkaBootstrap, String proxyBootstrap, int managementPort) {
        return withFilters(kafkaBootstrap, proxyBootstrap, managementPort, "", List.of());
    }

    /**
     * The same proxy with filters: {@code definitions} are the items of {@code filterDefinitions} (YAML, each starting
     * {@code - name:} at column 0), {@code chain} the virtual cluster's filters in order.
     */
    public static String withFilters(String kafkaBootstrap, String proxyBootstrap, int managementPort, String definitions,
                                     List<String> chain) {
        String filterDefinitions = definitions.isBlank() ? ""
                : "filterDefinitions:\n" + definitions.stripTrailing().lines().map(line -> "  " + line + "\n").collect(Collectors.joining());
        String filters = chain.isEmpty() ? "" : "    filters: [" + String.join(", ", chain) + "]\n";
        return filterDefinitions + """
                management:
                  bindAddress: 127.0.0.1
                  port: %d
                virtualClusters:
                  - name: demo
                    targetCluster:
                      bootstrapServers: "%s"
                    gateways:
                      - name: default
                        portIdentifiesNode:
                          bootstrapAddress: "%s"
                """.formatted(managementPort, kafkaBootstrap, proxyBootstrap) + filters;
    }
}
