package io.sluice.proxy.config;

import java.util.ArrayList;
import java.util.List;

/**
 * Finds server names two SNI gateways sharing a port would both answer to. Gateways that listen on the same port share
 * one listener, which picks the gateway by the ClientHello's server name alone, so every name on a port must belong to
 * one gateway: no two bootstrap names equal, no bootstrap name one of a broker pattern's names, no two broker patterns
 * with a name in common (checked exactly, {@link HostPattern#overlaps}). Sections that are invalid on their own are
 * {@link SniHostsValidator}'s to report and are left out here.
 */
final class SniNameConflicts {

    private record Name(int port, String gateway, String field, HostPattern pattern) {
    }

    private SniNameConflicts() {
    }

    static List<String> conflicts(List<VirtualClusterConfig> clusters) {
        List<Name> names = new ArrayList<>();
        for (int c = 0; c < clusters.size(); c++) {
            List<GatewayConfig> gateways = clusters.get(c).gateways();
            for (int g = 0; g < gateways.size(); g++) {
                SniHostIdentifiesNodeConfig sni = gateways.get(g).sniHostIdentifiesNode();
                if (sni != null && sni.listenAddress() != null) {
                    String gateway = "virtualClusters[" + c + "].gateways[" + g + "]";
                    add(names, sni.listenAddress().port(), gateway, "bootstrapHost", sni.bootstrapHost(), false);
                    add(names, sni.listenAddress().port(), gateway, "brokerHostPattern", sni.brokerHostPattern(), true);
                }
            }
        }
        List<String> problems = new ArrayList<>();
        for (int i = 0; i < names.size(); i++) {
            for (int j = 0; j < i; j++) {
                Name later = names.get(i);
                Name earlier = names.get(j);
                if (later.port() == earlier.port() && later.pattern().overlaps(earlier.pattern())) {
                    String owner = earlier.gateway().equals(later.gateway()) ? "this gateway" : earlier.gateway();
                    problems.add(later.gateway() + ".sniHostIdentifiesNode." + later.field() + ": '" + later.pattern() + "' and "
                            + earlier.field() + " '" + earlier.pattern() + "' of " + owner + " on port " + later.port()
                            + " share a server name, so a client's SNI could not pick one of them");
                }
            }
        }
        return problems;
    }

    private static void add(List<Name> names, int port, String gateway, String field, String text, boolean brokers) {
        if (text == null) {
            return;
        }
        try {
            HostPattern pattern = HostPattern.parse(text);
            if (pattern.hasNodeId() == brokers) {
                names.add(new Name(port, gateway, field, pattern));
            }
        }
        catch (IllegalArgumentException e) {
            // reported by SniHostsValidator
        }
    }
}
