package io.sluice.config;

/**
 * The {@code clientAuth} of a server TLS section: whether a listener (a proxy gateway, the bridge) asks clients for a
 * certificate. Named apart from Netty's {@code ClientAuth}, which {@code SslContexts} maps it to.
 */
public enum ClientAuthMode {
    /** No client certificate is requested. */
    NONE,
    /** A certificate is requested and verified if sent, but clients without one are let in. */
    REQUESTED,
    /** Clients must present a certificate the trust store accepts (mutual TLS). */
    REQUIRED
}
