package io.sluice.config;

import java.util.List;

/**
 * TLS that a gateway offers to Kafka clients.
 *
 * @param trust the CAs client certificates must chain to; required unless {@code clientAuth} is NONE
 * @param protocols e.g. {@code TLSv1.3}; empty means the JVM defaults
 * @param cipherSuites empty means the JVM defaults
 */
public record TlsServerConfig(KeyConfig key,
                              TrustConfig trust,
                              ClientAuthMode clientAuth,
                              List<String> protocols,
                              List<String> cipherSuites) {

    public TlsServerConfig {
        clientAuth = clientAuth == null ? ClientAuthMode.NONE : clientAuth;
        protocols = protocols == null ? List.of() : List.copyOf(protocols);
        cipherSuites = cipherSuites == null ? List.of() : List.copyOf(cipherSuites);
    }
}
