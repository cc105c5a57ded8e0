package io.sluice.proxy.config;

import java.util.List;

/**
 * A cluster as clients see it, backed by one target cluster.
 *
 * @param filters the filter chain by name; null means the proxy's {@code defaultFilters}, empty means no filters
 * @param connectionLimits how many client connections it accepts; never null
 */
public record VirtualClusterConfig(String name,
                                   TargetClusterConfig targetCluster,
                                   List<GatewayConfig> gateways,
                                   List<String> filters,
                                   ConnectionLimitsConfig connectionLimits) {

    public VirtualClusterConfig {
        gateways = gateways == null ? List.of() : List.copyOf(gateways);
        filters = filters == null ? null : List.copyOf(filters);
        connectionLimits = connectionLimits == null ? ConnectionLimitsConfig.defaults() : connectionLimits;
    }
}
