package io.sluice.proxy.config;

import io.sluice.config.TlsServerConfig;

/**
 * One way in to a virtual cluster: a listening address scheme and optional TLS.
 *
 * @param tls null means plaintext
 */
public record GatewayConfig(String name, PortIdentifiesNodeConfig portIdentifiesNode, TlsServerConfig tls) {
}
