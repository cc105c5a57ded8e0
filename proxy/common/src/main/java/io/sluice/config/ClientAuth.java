package io.sluice.config;

/** Whether the gateway asks Kafka clients for a certificate. */
public enum ClientAuth {
    /** No client certificate is requested. */
    NONE,
    /** A certificate is requested and verified if sent, but clients without one are let in. */
    REQUESTED,
    /** Clients must present a certificate the trust store accepts (mutual TLS). */
    REQUIRED
}
