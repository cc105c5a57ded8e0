package io.sluice.proxy.config;

import java.util.ArrayList;
import java.util.List;

/**
 * Finds ports claimed twice across all gateways. Each port-per-broker gateway claims its bootstrap port and its node
 * ports: the exact block when nodeIdRanges are given, otherwise only nodeStartPort, since how far the block extends
 * depends on the node ids the cluster turns out to have. An SNI gateway claims its listen port, which other SNI
 * gateways may share when they name the same listen address (their server names are {@link SniNameConflicts}' check).
 */
final class GatewayPorts {

    /** @param sniHost the listen host of an SNI listen port, which SNI gateways on the same address share; else null */
    private record Claim(int first, int last, String gateway, String field, String what, String sniHost) {

        Claim(int first, int last, String gateway, String field, String what) {
            this(first, last, gateway, field, what, null);
        }

        boolean overlaps(Claim other) {
            return first <= other.last && other.first <= last;
        }

        boolean shares(Claim other) {
            return sniHost != null && sniHost.equalsIgnoreCase(other.sniHost);
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
                String gateway = "virtualClusters[" + c + "].gateways[" + g + "]";
                PortIdentifiesNodeConfig ports = gateways.get(g).portIdentifiesNode();
                if (ports != null) {
                    claim(ports, gateway, claims);
                }
                SniHostIdentifiesNodeConfig sni = gateways.get(g).sniHostIdentifiesNode();
                if (sni != null && sni.listenAddress() != null && sni.listenAddress().port() > 0) {
                    int port = sni.listenAddress().port();
                    claims.add(new Claim(port, port, gateway, "sniHostIdentifiesNode.listenAddress", "SNI listen port", sni.listenAddress().host()));
                }
            }
        }
        List<String> problems = new ArrayList<>();
        for (int i = 0; i < claims.size(); i++) {
            for (int j = 0; j < i; j++) {
                Claim later = claims.get(i);
                Claim earlier = claims.get(j);
                if (later.overlaps(earlier) && !later.shares(earlier)) {
                    String owner = earlier.gateway().equals(later.gateway()) ? "this gateway" : earlier.gateway();
                    boolean sniPair = later.sniHost() != null && earlier.sniHost() != null;
                    problems.add(later.gateway() + "." + later.field() + ": " + later.describe()
                            + " overlaps " + earlier.describe() + " of " + owner
                            + (sniPair ? " listening on '" + earlier.sniHost() + "': SNI gateways share a port only with the same listenAddress" : ""));
                }
            }
        }
        return problems;
    }

    private static void claim(PortIdentifiesNodeConfig ports, String gateway, List<Claim> claims) {
        if (ports.bootstrapAddress() != null && ports.bootstrapAddress().port() > 0) {
            int port = ports.bootstrapAddress().port();
            claims.add(new Claim(port, port, gateway, "portIdentifiesNode.bootstrapAddress", "bootstrap port"));
        }
        int start = ports.nodeStartPort();
        if (start < 1 || start > 65535) {
            return;
        }
        long count = ports.rangedPortCount();
        if (count > 0) {
            int last = (int) Math.min(65535, start + count - 1);
            claims.add(new Claim(start, last, gateway, "portIdentifiesNode.nodeIdRanges", "node ports"));
        }
        else {
            claims.add(new Claim(start, start, gateway, "portIdentifiesNode.nodeStartPort", "node start port"));
        }
    }
}
