package io.sluice.bench.targets;

/**
 * The demo's proxy configuration: one virtual cluster, passthrough, one port-per-broker gateway. In: the broker's
 * bootstrap, the proxy's and its management port; out: the YAML. Shared by {@code sluice demo} and the benchmarks that
 * measure "the demo's passthrough proxy" ({@code bench proxy} without targets, {@code bench idle}).
 */
public final class DemoProxyConfig {

    private DemoProxyConfig() {
    }

    public static String yaml(String kafkaBootstrap, String proxyBootstrap, int managementPort) {
        return """
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
                """.formatted(managementPort, kafkaBootstrap, proxyBootstrap);
    }
}
