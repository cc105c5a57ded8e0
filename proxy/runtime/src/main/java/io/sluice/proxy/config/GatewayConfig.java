package io.sluice.proxy.config;

import io.sluice.config.HostPort;
import io.sluice.config.TlsServerConfig;

/**
 * One way in to a virtual cluster: a listening address scheme, port per broker or SNI host per broker (exactly one of
 * the two, which validation checks), and optional TLS (required with SNI).
 *
 * @param tls null means plaintext
 */
public record GatewayConfig(String name,
                            PortIdentifiesNodeConfig portIdentifiesNode,
                            SniHostIdentifiesNodeConfig sniHostIdentifiesNode,
                            TlsServerConfig tls) {

    /**
     * Where the gateway accepts connections: the bootstrap address of a port-per-broker gateway, the listen address of
     * an SNI one; null when neither scheme is set (which validation reports).
     */
    public HostPort listenAddress() {
        if (portIdentifiesNode != null) {
            return portIdentifiesNode.bootstrapAddress();
        }
        return sniHostIdentifiesNode == null ? null : sniHostIdentifiesNode.listenAddress();
    }
}
