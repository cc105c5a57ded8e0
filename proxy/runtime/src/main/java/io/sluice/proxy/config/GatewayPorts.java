package io.sluice.proxy.config;

import java.util.ArrayList;
import java.util.List;

/**
 * Finds ports claimed twice across all gateways. Each gateway claims its bootstrap port and its node ports: the exact
 * block when nodeIdRanges are given, otherwise only nodeStartPort, since how far the block extends depends on the node
 * ids the cluster turns out to have.
 */
final class GatewayPorts {

    private record Claim(int first, int last, String gateway, String field, String what) {

        boolean overlaps(Claim other) {
            return first <= other.last && other.first <= last;
        }

        String describe() {
            return first == last ? what + " " + first : what + " " + first + ".." + last;
        }
    }

    private GatewayPorts() {
    }

    static List<String> conflicts(List<VirtualClusterConfig> clusters) {
        List<Claim> claims = new ArrayList<>();
        for (int c = 0; c < clusters.size(); c++) {
            List<GatewayConfig> gateways = clusters.get(c).gateways();
            for (int g = 0; g < gateways.size(); g++) {
                PortIdentifiesNodeConfig ports = gateways.get(g).portIdentifiesNode();
                if (ports != null) {
                    claim(ports, "virtualClusters[" + c + "].gateways[" + g + "]", claims);
                }
            }
        }
        List<String> problems = new ArrayList<>();
        for (int i = 0; i < claims.size(); i++) {
            for (int j = 0; j < i; j++) {
                Claim later = claims.get(i);
                Claim earlier = claims.get(j);
                if (later.overlaps(earlier)) {
                    String owner = earlier.gateway().equals(later.gateway()) ? "this gateway" : earlier.gateway();
                    problems.add(later.gateway() + ".portIdentifiesNode." + later.field() + ": " + later.describe()
                            + " overlaps " + earlier.describe() + " of " + owner);
                }
            }
        }
        return problems;
    }

    private static void claim(PortIdentifiesNodeConfig ports, String gateway, List<Claim> claims) {
        if (ports.bootstrapAddress() != null && ports.bootstrapAddress().port() > 0) {
            int port = ports.bootstrapAddress().port();
            claims.add(new Claim(port, port, gateway, "bootstrapAddress", "bootstrap port"));
        }
        int start = ports.nodeStartPort();
        if (start < 1 || start > 65535) {
            return;
        }
        long count = ports.rangedPortCount();
        if (count > 0) {
            int last = (int) Math.min(65535, start + count - 1);
            claims.add(new Claim(start, last, gateway, "nodeIdRanges", "node ports"));
        }
        else {
            claims.add(new Claim(start, start, gateway, "nodeStartPort", "node start port"));
        }
    }
}
