package io.sluice.bench.targets;

import java.util.Map;
import java.util.ServiceLoader;
import java.util.regex.Pattern;

/**
 * Credentials for a benchmark target whose proxy authenticates clients: what the proxy is started with and what the
 * benchmark's clients present. Provided through {@link ServiceLoader} by the module that owns the authenticating
 * filter, so the benchmark itself knows nothing of tokens or mechanisms.
 */
public interface TargetCredentials {

    /** The filter type whose presence in a target's configuration calls for these credentials. */
    String filterType();

    /** Fresh credentials for one benchmark run. */
    Issued issue();

    /**
     * @param proxyEnvironment variables the proxy's configuration reads (a verification secret, say)
     * @param clientConfig     properties for the producers and consumers, which may only produce and consume (the
     *                         benchmark creates its topics on the broker itself)
     */
    record Issued(Map<String, String> proxyEnvironment, Map<String, Object> clientConfig) {

        public static final Issued NONE = new Issued(Map.of(), Map.of());
    }

    /** Credentials for the target, from the provider of the first authenticating filter its configuration uses. */
    static Issued forTarget(BenchTarget target) {
        if (target.direct()) {
            return Issued.NONE;
        }
        for (TargetCredentials provider : ServiceLoader.load(TargetCredentials.class)) {
            Pattern type = Pattern.compile("(?m)^\\s*type:\\s*[\"']?(?:[\\w.]+\\.)?" + Pattern.quote(provider.filterType()) + "[\"']?\\s*$");
            if (type.matcher(target.proxyConfigTemplate()).find()) {
                return provider.issue();
            }
        }
        return Issued.NONE;
    }
}
