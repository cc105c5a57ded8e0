package io.sluice.proxy.config;

import java.util.Set;
import io.sluice.config.PasswordSource;

/**
 * The proxy's own credentials towards the target cluster. With these set, every broker connection is
 * authenticated by the proxy before a client request is forwarded on it, so clients need not (and
 * must not) authenticate to the brokers themselves: a filter such as JwtAuth authenticates them at
 * the proxy instead.
 *
 * @param mechanism PLAIN, SCRAM-SHA-256 or SCRAM-SHA-512
 */
public record SaslClientConfig(String mechanism, String username, PasswordSource password) {

    public static final Set<String> MECHANISMS = Set.of("PLAIN", "SCRAM-SHA-256", "SCRAM-SHA-512");

    @Override
    public String toString() {
        return "SaslClientConfig[mechanism=" + mechanism + ", username=" + username + ", password=" + password + "]";
    }
}
