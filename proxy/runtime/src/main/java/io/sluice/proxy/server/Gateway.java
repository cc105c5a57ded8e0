package io.sluice.proxy.server;

import java.net.InetSocketAddress;

import io.sluice.proxy.cluster.NodeAdvertiser;

/**
 * One way in to a virtual cluster while the proxy runs: it tells clients where each broker is (as the
 * {@link NodeAdvertiser} of the cluster's address rewriting) and takes their connections, by a port per broker
 * ({@link PortGateway}) or by the TLS server name on one shared port ({@link SniGateway}).
 */
sealed interface Gateway extends NodeAdvertiser permits PortGateway, SniGateway {

    String name();

    /** Whether it accepts bootstrap connections now, for readiness. */
    boolean isBound();

    /** Where it accepts bootstrap connections (the bound port, useful when the configuration asked for port 0). */
    InetSocketAddress bootstrapAddress();

    /** Discovery found broker {@code nodeId}: a port-per-broker gateway binds its port ahead of the first client. */
    void nodeDiscovered(int nodeId);
}
