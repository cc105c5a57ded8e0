package io.sluice.app.cli;

import java.net.InetAddress;
import java.util.ArrayList;
import java.util.List;

import io.netty.util.NetUtil;

import io.sluice.config.HostPort;
import io.sluice.proxy.config.FilterDefinition;
import io.sluice.proxy.config.GatewayConfig;
import io.sluice.proxy.config.ProxyConfig;
import io.sluice.proxy.config.VirtualClusterConfig;
import io.sluice.proxy.filter.FilterFactory;
import io.sluice.proxy.server.ProxyServer;

/**
 * Gateways where a filter that authenticates clients ({@link FilterFactory#authenticatesClients()}, e.g. JwtAuth) is
 * served without TLS on an address other hosts can reach: the clients' bearer tokens or passwords would cross the
 * network in clear. A warning, not an error: TLS may end in front of the proxy (a sidecar, a service mesh), which the
 * configuration cannot see. Loopback is exempt, as only the same host can listen there.
 */
final class PlaintextAuthentication {

    private PlaintextAuthentication() {
    }

    /** One line per such gateway, naming the virtual cluster, the gateway, its address and the filter. */
    static List<String> warnings(ProxyConfig config) {
        List<String> warnings = new ArrayList<>();
        for (int i = 0; i < config.virtualClusters().size(); i++) {
            VirtualClusterConfig vc = config.virtualClusters().get(i);
            List<String> authenticating = config.filtersFor(vc).stream().filter(PlaintextAuthentication::authenticates)
                    .map(f -> f.type() + " (filter '" + f.name() + "')").toList();
            if (authenticating.isEmpty()) {
                continue;
            }
            for (int g = 0; g < vc.gateways().size(); g++) {
                GatewayConfig gateway = vc.gateways().get(g);
                // An SNI gateway always has TLS (validation requires it); only port-per-broker ones can be plaintext.
                HostPort address = gateway.listenAddress();
                if (gateway.tls() == null && address != null && !isLoopback(address.host())) {
                    warnings.add(String.format("virtualClusters[%d] '%s' gateways[%d] '%s' serves %s without TLS on %s: clients' credentials"
                                    + " cross the network in clear. Set virtualClusters[%d].gateways[%d].tls, unless TLS ends in front of the proxy"
                                    + " (docs/security.md).", i, vc.name(), g, gateway.name(), String.join(", ", authenticating), address, i, g));
                }
            }
        }
        return warnings;
    }

    private static boolean authenticates(FilterDefinition definition) {
        // Named by simple or fully qualified class name, as the proxy resolves them; an unknown type is validation's error.
        return ProxyServer.authenticatesClients(definition.type());
    }

    /** Without a DNS lookup: {@code localhost} and loopback literals (127.0.0.0/8, ::1); any other name may be reachable. */
    static boolean isLoopback(String host) {
        if (host.equalsIgnoreCase("localhost")) {
            return true;
        }
        InetAddress literal = NetUtil.createInetAddressFromIpAddressString(host);
        return literal != null && literal.isLoopbackAddress();
    }
}
