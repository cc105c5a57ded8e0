package io.sluice.proxy.config;

import java.util.List;

/**
 * A cluster as clients see it, backed by one target cluster.
 *
 * @param filters the filter chain by name; null means the proxy's {@code defaultFilters}, empty means no filters
 */
public record VirtualClusterConfig(String name,
                                   TargetClusterConfig targetCluster,
                                   List<GatewayConfig> gateways,
                                   List<String> filters) {

    public VirtualClusterConfig {
        gateways = gateways == null ? List.of() : List.copyOf(gateways);
        filters = filters == null ? null : List.copyOf(filters);
    }
}
