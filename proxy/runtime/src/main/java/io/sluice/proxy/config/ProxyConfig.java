package io.sluice.proxy.config;

import java.util.List;
import java.util.Optional;
import io.sluice.config.ConfigException;
import io.sluice.config.ManagementConfig;

/**
 * The whole proxy configuration, as loaded by {@link ProxyConfigLoader}. Network and management settings are never null
 * and the lists are never null, so callers need no defaulting of their own.
 */
public record ProxyConfig(NetworkConfig network,
                          ManagementConfig management,
                          List<VirtualClusterConfig> virtualClusters,
                          List<FilterDefinition> filterDefinitions,
                          List<String> defaultFilters) {

    public ProxyConfig {
        network = network == null ? NetworkConfig.defaults() : network;
        management = management == null ? ManagementConfig.defaults() : management;
        virtualClusters = virtualClusters == null ? List.of() : List.copyOf(virtualClusters);
        filterDefinitions = filterDefinitions == null ? List.of() : List.copyOf(filterDefinitions);
        defaultFilters = defaultFilters == null ? List.of() : List.copyOf(defaultFilters);
    }

    public Optional<FilterDefinition> filterDefinition(String name) {
        return filterDefinitions.stream().filter(f -> f.name() != null && f.name().equals(name)).findFirst();
    }

    /**
     * The filter chain of a cluster in order: its own list, or {@code defaultFilters} when it has none.
     *
     * @throws ConfigException when a name has no definition, which {@link ProxyConfigLoader} rules out but a configuration
     *                         built in code may have
     */
    public List<FilterDefinition> filtersFor(VirtualClusterConfig cluster) {
        List<String> names = cluster.filters() != null ? cluster.filters() : defaultFilters;
        String field = cluster.filters() != null ? "virtualClusters[" + cluster.name() + "].filters" : "defaultFilters";
        return names.stream().map(n -> filterDefinition(n).orElseThrow(
                () -> new ConfigException(field + ": no filter definition named '" + n + "'"))).toList();
    }
}
