package io.sluice.proxy.server;

import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.OptionalInt;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.EventLoopGroup;
import io.netty.handler.ssl.SslContext;
import io.sluice.proxy.config.GatewayConfig;
import io.sluice.config.HostPort;
import io.sluice.proxy.config.NetworkConfig;
import io.sluice.proxy.metrics.ProxyMetrics;
import io.sluice.proxy.runtime.ClientChannelInitializer;
import io.sluice.proxy.runtime.ConnectionSetup;
import io.sluice.proxy.runtime.UpstreamDialer;
import io.sluice.transport.Transport;

/**
 * A port-per-broker gateway ({@code portIdentifiesNode}): one bootstrap port, plus one port per broker node, bound the
 * first time the node is seen (in discovery or in any response that names it), so no node-id range has to be written
 * down for the common case. A client's port tells the proxy which broker it means.
 */
final class PortGateway implements Gateway {

    private static final Logger LOG = LoggerFactory.getLogger(PortGateway.class);

    private final VirtualClusterRuntime cluster;
    private final GatewayConfig config;
    private final EventLoopGroup group;
    private final Transport transport;
    private final NetworkConfig network;
    private final SslContext sslContext;
    private final Map<Integer, CompletableFuture<Channel>> nodePorts = new ConcurrentHashMap<>();
    private volatile Channel bootstrapChannel;

    PortGateway(VirtualClusterRuntime cluster, GatewayConfig config, EventLoopGroup group, Transport transport, NetworkConfig network, SslContext sslContext) {
        this.cluster = cluster;
        this.config = config;
        this.group = group;
        this.transport = transport;
        this.network = network;
        this.sslContext = sslContext;
    }

    @Override
    public String name() {
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

    @Override
    public InetSocketAddress bootstrapAddress() {
        return localAddress(bootstrapChannel);
    }

    @Override
    public boolean isBound() {
        return bootstrapChannel != null && bootstrapChannel.isActive();
    }

    @Override
    public CompletionStage<HostPort> advertise(int nodeId, String brokerHost, int brokerPort) {
        cluster.registry().learn(nodeId, new HostPort(brokerHost, brokerPort));
        return ensureNodePort(nodeId).thenApply(channel -> config.portIdentifiesNode().advertisedAddress(nodeId)
                .orElseThrow(() -> new IllegalStateException("broker node " + nodeId + " has no advertised address in gateway " + name())));
    }

    @Override
    public void nodeDiscovered(int nodeId) {
        ensureNodePort(nodeId).exceptionally(e -> {
            LOG.error("virtual cluster {}: {}", cluster.name(), e.getMessage());
            return null;
        });
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
        ConnectionSetup setup = new GatewaySetup(cluster, this, network, sslContext, dialer, cluster.metrics(nodeId));
        return ListenerBootstrap.create(group, transport, network, new ClientChannelInitializer(setup))
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
}
