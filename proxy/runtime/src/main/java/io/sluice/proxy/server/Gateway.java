package io.sluice.proxy.server;

import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.OptionalInt;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import io.netty.bootstrap.ServerBootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.WriteBufferWaterMark;
import io.sluice.proxy.cluster.ApiVersionsCache;
import io.netty.handler.ssl.SslContext;
import io.sluice.proxy.cluster.NodeAdvertiser;
import io.sluice.proxy.config.GatewayConfig;
import io.sluice.config.HostPort;
import io.sluice.proxy.config.NetworkConfig;
import io.sluice.proxy.config.PreAuthenticationConfig;
import io.sluice.proxy.metrics.ProxyMetrics;
import io.sluice.proxy.metrics.VirtualClusterMetrics;
import io.sluice.proxy.runtime.BrokerTroubleLog;
import io.sluice.proxy.runtime.ClientChannelInitializer;
import io.sluice.proxy.runtime.ConnectionSetup;
import io.sluice.proxy.runtime.ConnectionLimiter;
import io.sluice.proxy.runtime.NamedFilter;
import io.sluice.proxy.runtime.OpenConnections;
import io.sluice.proxy.runtime.ProxyConnection;
import io.sluice.proxy.runtime.UpstreamDialer;
import io.sluice.transport.Transport;

/**
 * A port-per-broker gateway: one bootstrap port, plus one port per broker node, bound the first time the
 * node is seen (in discovery or in any response that names it), so no node-id range has to be written
 * down for the common case. A client's port tells the proxy which broker it means.
 */
final class Gateway implements NodeAdvertiser {

    private static final Logger LOG = LoggerFactory.getLogger(Gateway.class);

    private final VirtualClusterRuntime cluster;
    private final GatewayConfig config;
    private final EventLoopGroup group;
    private final Transport transport;
    private final NetworkConfig network;
    private final SslContext sslContext;
    private final Map<Integer, CompletableFuture<Channel>> nodePorts = new ConcurrentHashMap<>();
    private volatile Channel bootstrapChannel;

    Gateway(VirtualClusterRuntime cluster, GatewayConfig config, EventLoopGroup group, Transport transport, NetworkConfig network, SslContext sslContext) {
        this.cluster = cluster;
        this.config = config;
        this.group = group;
        this.transport = transport;
        this.network = network;
        this.sslContext = sslContext;
    }

    String name() {
        return config.name();
    }

    /** Binds the bootstrap port; blocks, because the proxy should not report started before it can accept. */
    void bindBootstrap() {
        HostPort address = config.portIdentifiesNode().bootstrapAddress();
        bootstrapChannel = bind(address.port(), cluster.bootstrapDialer(), ProxyMetrics.BOOTSTRAP_NODE).syncUninterruptibly().channel();
        LOG.info("virtual cluster {} gateway {}: bootstrap on {}, broker node N on port {}+N{}", cluster.name(), name(), localAddress(bootstrapChannel),
                config.portIdentifiesNode().nodeStartPort(), config.portIdentifiesNode().nodeIdRanges().isEmpty() ? "" : " within the configured nodeIdRanges");
    }

    /** The bootstrap address as configured (its port may be 0). */
    HostPort requestedBootstrapAddress() {
        return config.portIdentifiesNode().bootstrapAddress();
    }

    InetSocketAddress bootstrapAddress() {
        return localAddress(bootstrapChannel);
    }

    boolean isBound() {
        return bootstrapChannel != null && bootstrapChannel.isActive();
    }

    @Override
    public CompletionStage<HostPort> advertise(int nodeId, String brokerHost, int brokerPort) {
        cluster.registry().learn(nodeId, new HostPort(brokerHost, brokerPort));
        return ensureNodePort(nodeId).thenApply(channel -> config.portIdentifiesNode().advertisedAddress(nodeId)
                .orElseThrow(() -> new IllegalStateException("broker node " + nodeId + " has no advertised address in gateway " + name())));
    }

    /** Binds the node's port unless already bound; completes when it accepts connections. */
    CompletableFuture<Channel> ensureNodePort(int nodeId) {
        CompletableFuture<Channel> existing = nodePorts.get(nodeId);
        if (existing != null) {
            return existing;
        }
        OptionalInt port = config.portIdentifiesNode().portForNode(nodeId);
        if (port.isEmpty()) {
            return CompletableFuture.failedFuture(new IllegalStateException("virtual cluster " + cluster.name() + " gateway " + name()
                    + " has no port for broker node " + nodeId + "; widen portIdentifiesNode.nodeIdRanges or lower nodeStartPort"));
        }
        CompletableFuture<Channel> bound = new CompletableFuture<>();
        existing = nodePorts.putIfAbsent(nodeId, bound);
        if (existing != null) {
            return existing;
        }
        bind(port.getAsInt(), cluster.nodeDialer(nodeId), Integer.toString(nodeId)).addListener(f -> {
            if (f.isSuccess()) {
                Channel channel = ((ChannelFuture) f).channel();
                LOG.info("virtual cluster {} gateway {}: broker node {} on {}", cluster.name(), name(), nodeId, localAddress(channel));
                bound.complete(channel);
            } else {
                nodePorts.remove(nodeId, bound);
                bound.completeExceptionally(new IllegalStateException("cannot bind port " + port.getAsInt() + " for broker node " + nodeId + ": " + f.cause(), f.cause()));
            }
        });
        return bound;
    }

    private ChannelFuture bind(int port, UpstreamDialer dialer, String nodeId) {
        ConnectionSetup setup = new Setup(dialer, cluster.metrics(nodeId));
        return new ServerBootstrap()
                .group(group)
                .channel(transport.serverChannel())
                .option(ChannelOption.SO_REUSEADDR, true)
                .childOption(ChannelOption.TCP_NODELAY, true)
                .childOption(ChannelOption.AUTO_READ, false)
                .childOption(ChannelOption.WRITE_BUFFER_WATER_MARK,
                        new WriteBufferWaterMark(network.writeBufferLowWaterMark(), network.writeBufferHighWaterMark()))
                .childHandler(new ClientChannelInitializer(setup))
                .bind(config.portIdentifiesNode().bootstrapAddress().host(), port);
    }

    List<Channel> channels() {
        List<Channel> all = new ArrayList<>();
        if (bootstrapChannel != null) {
            all.add(bootstrapChannel);
        }
        nodePorts.values().forEach(f -> {
            if (f.isDone() && !f.isCompletedExceptionally()) {
                all.add(f.join());
            }
        });
        return all;
    }

    private static InetSocketAddress localAddress(Channel channel) {
        return (InetSocketAddress) channel.localAddress();
    }

    /** The pipeline settings shared by this gateway's ports; only the dialer differs per port. */
    private final class Setup implements ConnectionSetup {
        private final UpstreamDialer dialer;
        private final VirtualClusterMetrics metrics;

        Setup(UpstreamDialer dialer, VirtualClusterMetrics metrics) {
            this.dialer = dialer;
            this.metrics = metrics;
        }

        @Override
        public String virtualCluster() {
            return cluster.name();
        }

        @Override
        public String gateway() {
            return config.name();
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
            return cluster.createFilters(connection, Gateway.this);
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
}
