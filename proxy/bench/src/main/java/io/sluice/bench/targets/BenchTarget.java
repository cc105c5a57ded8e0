package io.sluice.bench.targets;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.ServiceLoader;

import io.sluice.config.ConfigException;
import io.sluice.proxy.config.ProxyConfigLoader;
import io.sluice.proxy.config.FilterDefinition;
import io.sluice.proxy.config.ProxyConfig;
import io.sluice.proxy.filter.FilterFactory;

/**
 * Something a benchmark sends its load to: the broker directly, or the proxy run with one configuration. A new
 * proxy feature becomes a target by adding a configuration, nothing else.
 *
 * @param proxyConfigTemplate the proxy's YAML with {@code ${KAFKA_BOOTSTRAP}}, {@code ${SLUICE_BOOTSTRAP}} and
 *                            {@code ${SLUICE_MANAGEMENT_PORT}} left for the runner; null for the broker directly
 * @param clientConfig        what the benchmark's producers and consumers add for this target (a target whose proxy
 *                            checks their records: {@code validating}'s JSON values); empty for most
 */
public record BenchTarget(String name, String description, String proxyConfigTemplate, Map<String, Object> clientConfig) {

    public BenchTarget {
        clientConfig = clientConfig == null ? Map.of() : Map.copyOf(clientConfig);
    }

    /** A target whose clients need nothing of their own. */
    public BenchTarget(String name, String description, String proxyConfigTemplate) {
        this(name, description, proxyConfigTemplate, Map.of());
    }

    public static final String KAFKA_BOOTSTRAP = "KAFKA_BOOTSTRAP";
    public static final String SLUICE_BOOTSTRAP = "SLUICE_BOOTSTRAP";
    public static final String SLUICE_MANAGEMENT_PORT = "SLUICE_MANAGEMENT_PORT";

    public boolean direct() {
        return proxyConfigTemplate == null;
    }

    /**
     * The environment the proxy is started with: this process's, plus the addresses the runner chose.
     */
    public static Map<String, String> proxyEnvironment(String kafkaBootstrap, String proxyBootstrap, int managementPort) {
        Map<String, String> env = new HashMap<>(System.getenv());
        env.put(KAFKA_BOOTSTRAP, kafkaBootstrap);
        env.put(SLUICE_BOOTSTRAP, proxyBootstrap);
        env.put(SLUICE_MANAGEMENT_PORT, Integer.toString(managementPort));
        return env;
    }

    /**
     * Why this build cannot run the target, if it cannot: its configuration does not load, or names a filter type
     * no module on the class path provides (a feature still being built, say).
     */
    public Optional<String> unavailableReason(Map<String, String> env) {
        if (direct()) {
            return Optional.empty();
        }
        ProxyConfig config;
        try {
            config = ProxyConfigLoader.parse(proxyConfigTemplate, env);
        } catch (ConfigException e) {
            return Optional.of("its proxy configuration does not load: " + String.join("; ", e.problems()));
        }
        List<String> missing = new ArrayList<>();
        for (FilterDefinition filter : config.filterDefinitions()) {
            if (!filterTypeAvailable(filter.type())) {
                missing.add(filter.type());
            }
        }
        return missing.isEmpty() ? Optional.empty()
                : Optional.of("it needs filter type(s) " + String.join(", ", missing) + ", which this build does not have"
                        + " (available: " + availableFilterTypes() + ")");
    }

    // The proxy accepts a filter's simple or fully qualified class name; so does this check.
    private static boolean filterTypeAvailable(String type) {
        for (FilterFactory<?, ?> factory : ServiceLoader.load(FilterFactory.class)) {
            Class<?> c = factory.getClass();
            if (c.getName().equals(type) || c.getSimpleName().equals(type)) {
                return true;
            }
        }
        return false;
    }

    private static String availableFilterTypes() {
        List<String> names = new ArrayList<>();
        ServiceLoader.load(FilterFactory.class).forEach(f -> names.add(f.getClass().getSimpleName()));
        return names.isEmpty() ? "none" : String.join(", ", names);
    }
}
