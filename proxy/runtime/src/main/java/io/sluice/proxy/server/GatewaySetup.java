package io.sluice.proxy.server;

import java.time.Duration;
import java.util.List;

import io.netty.handler.ssl.SslContext;
import io.sluice.proxy.cluster.ApiVersionsCache;
import io.sluice.proxy.config.NetworkConfig;
import io.sluice.proxy.config.PreAuthenticationConfig;
import io.sluice.proxy.metrics.VirtualClusterMetrics;
import io.sluice.proxy.runtime.BrokerTroubleLog;
import io.sluice.proxy.runtime.ConnectionLimiter;
import io.sluice.proxy.runtime.ConnectionSetup;
import io.sluice.proxy.runtime.NamedFilter;
import io.sluice.proxy.runtime.OpenConnections;
import io.sluice.proxy.runtime.ProxyConnection;
import io.sluice.proxy.runtime.UpstreamDialer;

/**
 * The pipeline settings of the connections a gateway takes for one target, the bootstrap or one broker: the virtual
 * cluster's, the gateway's TLS and address rewriting, and the dialer and meters of that target. A port-per-broker
 * gateway has one per port; an SNI gateway one per server name it routes.
 */
final class GatewaySetup implements ConnectionSetup {

    private final VirtualClusterRuntime cluster;
    private final Gateway gateway;
    private final NetworkConfig network;
    private final SslContext sslContext;
    private final UpstreamDialer dialer;
    private final VirtualClusterMetrics metrics;

    GatewaySetup(VirtualClusterRuntime cluster, Gateway gateway, NetworkConfig network, SslContext sslContext, UpstreamDialer dialer,
                 VirtualClusterMetrics metrics) {
        this.cluster = cluster;
        this.gateway = gateway;
        this.network = network;
        this.sslContext = sslContext;
        this.dialer = dialer;
        this.metrics = metrics;
    }

    @Override
    public String virtualCluster() {
        return cluster.name();
    }

    @Override
    public String gateway() {
        return gateway.name();
    }

    @Override
    public VirtualClusterMetrics metrics() {
        return metrics;
    }

    @Override
    public SslContext clientSslContext() {
        return sslContext;
    }

    @Override
    public int maxFrameBytes() {
        return network.maxFrameBytes();
    }

    @Override
    public int maxFetchBytes() {
        return network.maxFetchBytes();
    }

    @Override
    public Duration maxUnwritableTime() {
        return network.maxUnwritableTime();
    }

    @Override
    public Duration connectionsMaxIdle() {
        return network.connectionsMaxIdle();
    }

    @Override
    public Duration filterTimeout() {
        return network.filterTimeout();
    }

    @Override
    public PreAuthenticationConfig preAuthentication() {
        return cluster.preAuthentication();
    }

    @Override
    public OpenConnections openConnections() {
        return cluster.openConnections();
    }

    @Override
    public ConnectionLimiter limiter() {
        return cluster.limiter();
    }

    @Override
    public List<NamedFilter> createFilters(ProxyConnection connection) {
        return cluster.createFilters(connection, gateway);
    }

    @Override
    public UpstreamDialer dialer() {
        return dialer;
    }

    @Override
    public ApiVersionsCache apiVersions() {
        return cluster.apiVersions();
    }

    @Override
    public BrokerTroubleLog brokerTrouble() {
        return cluster.brokerTrouble();
    }
}
