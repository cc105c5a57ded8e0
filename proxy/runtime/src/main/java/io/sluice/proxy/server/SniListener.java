package io.sluice.proxy.server;

import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Collectors;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import io.netty.channel.Channel;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.EventLoopGroup;
import io.sluice.config.HostPort;
import io.sluice.logging.RateLimitedLog;
import io.sluice.proxy.config.NetworkConfig;
import io.sluice.proxy.metrics.SniMetrics;
import io.sluice.proxy.runtime.ConnectionSetup;
import io.sluice.proxy.runtime.SniRefusal;
import io.sluice.proxy.runtime.SniRefusedException;
import io.sluice.proxy.runtime.SniRouter;
import io.sluice.proxy.runtime.SniRoutes;
import io.sluice.transport.Transport;

/**
 * One TLS port shared by the SNI gateways that name its address, of one virtual cluster or several. Each connection
 * starts with a {@link SniRouter}, which hands the ClientHello's server name to {@link #route}: the gateway whose
 * bootstrap name or broker pattern it is (configuration validation made sure at most one is) gives the connection its
 * pipeline. Until then a connection holds at most one ClientHello, for at most {@code network.preAuthentication.timeout},
 * and at most as many connections wait at once as the clusters on the port accept in all
 * ({@code connectionLimits.maxConnections} summed); each cluster's own limits apply once it is routed.
 */
final class SniListener implements SniRoutes {

    private static final Logger LOG = LoggerFactory.getLogger(SniListener.class);

    private final HostPort address;
    private final List<SniGateway> gateways;
    private final SniMetrics metrics;
    private final Duration deadline;
    private final int maxWaiting;
    private final AtomicInteger waiting = new AtomicInteger();
    // Any client can be refused, as often as it likes.
    private final RateLimitedLog refusals = new RateLimitedLog(LOG);
    private volatile Channel channel;

    SniListener(HostPort address, List<SniGateway> gateways, SniMetrics metrics, NetworkConfig network, int maxWaiting) {
        this.address = address;
        this.gateways = List.copyOf(gateways);
        this.metrics = metrics;
        this.deadline = network.preAuthentication().timeout();
        this.maxWaiting = maxWaiting;
        gateways.forEach(g -> g.listener(this));
    }

    HostPort address() {
        return address;
    }

    /** Binds the port; blocks, because the proxy should not report started before it can accept. */
    void bind(EventLoopGroup group, Transport transport, NetworkConfig network) {
        channel = ListenerBootstrap.create(group, transport, network, new ChannelInitializer<>() {
            @Override
            protected void initChannel(Channel ch) {
                if (waiting.incrementAndGet() > maxWaiting) {
                    waiting.decrementAndGet();
                    refused(ch, SniRefusal.TOO_MANY_HANDSHAKES, maxWaiting + " connections are waiting for their ClientHello to be routed");
                    ch.close();
                    return;
                }
                ch.pipeline().addLast("sni", new SniRouter(SniListener.this, deadline, waiting::decrementAndGet));
            }
        }).bind(address.host(), address.port()).syncUninterruptibly().channel();
        LOG.info("SNI listener on {}: {}", localAddress(), gateways.stream().map(SniGateway::describe).collect(Collectors.joining("; ")));
    }

    boolean isBound() {
        Channel bound = channel;
        return bound != null && bound.isActive();
    }

    InetSocketAddress localAddress() {
        return (InetSocketAddress) channel.localAddress();
    }

    /** Null before {@link #bind}. */
    Channel channel() {
        return channel;
    }

    @Override
    public CompletionStage<ConnectionSetup> route(String serverName) {
        for (SniGateway gateway : gateways) {
            CompletionStage<ConnectionSetup> route = gateway.route(serverName);
            if (route != null) {
                return route;
            }
        }
        return CompletableFuture.failedFuture(new SniRefusedException(SniRefusal.UNKNOWN_NAME,
                "no gateway on port " + address.port() + " answers to this server name"));
    }

    @Override
    public void refused(Channel ch, SniRefusal reason, String detail) {
        metrics.refused(reason.label());
        refusals.log("SNI listener {}: refused a connection from {}: {} [{}]", address, ch.remoteAddress(), detail, reason.label());
    }
}
