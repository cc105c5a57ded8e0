package io.sluice.proxy.config;

import java.util.List;
import io.sluice.config.HostPort;

/** Checks one {@code sniHostIdentifiesNode} section on its own; names shared across gateways are {@link SniNameConflicts}'. */
final class SniHostsValidator {

    private final List<String> problems;

    SniHostsValidator(List<String> problems) {
        this.problems = problems;
    }

    void validate(SniHostIdentifiesNodeConfig sni, String path) {
        HostPort listen = sni.listenAddress();
        if (listen == null) {
            problems.add(path + ".listenAddress: is required");
        }
        else if (listen.port() == 0) {
            problems.add(path + ".listenAddress: the port must be between 1 and 65535 (it is advertised to clients)");
        }
        HostPattern bootstrap = pattern(sni.bootstrapHost(), path + ".bootstrapHost");
        if (bootstrap != null && bootstrap.hasNodeId()) {
            problems.add(path + ".bootstrapHost: '" + sni.bootstrapHost() + "' must not contain " + HostPattern.NODE_ID_TOKEN
                    + ": it is the one name of the bootstrap (brokerHostPattern names the brokers)");
        }
        HostPattern brokers = pattern(sni.brokerHostPattern(), path + ".brokerHostPattern");
        if (brokers != null && !brokers.hasNodeId()) {
            problems.add(path + ".brokerHostPattern: '" + sni.brokerHostPattern() + "' must contain " + HostPattern.NODE_ID_TOKEN
                    + ": every broker needs a name of its own");
        }
        if (sni.advertisedPort() < 0 || sni.advertisedPort() > 65535) {
            problems.add(path + ".advertisedPort: must be between 1 and 65535 (absent: the listen port)");
        }
    }

    private HostPattern pattern(String text, String path) {
        if (text == null) {
            problems.add(path + ": is required");
            return null;
        }
        try {
            return HostPattern.parse(text);
        }
        catch (IllegalArgumentException e) {
            problems.add(path + ": " + e.getMessage());
            return null;
        }
    }
}
