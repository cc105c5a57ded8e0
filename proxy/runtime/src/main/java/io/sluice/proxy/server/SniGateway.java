package io.sluice.proxy.server;

import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.Map;
import java.util.OptionalInt;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;

import io.netty.handler.ssl.SslContext;
import io.sluice.config.HostPort;
import io.sluice.proxy.config.GatewayConfig;
import io.sluice.proxy.config.HostPattern;
import io.sluice.proxy.config.NetworkConfig;
import io.sluice.proxy.config.SniHostIdentifiesNodeConfig;
import io.sluice.proxy.metrics.ProxyMetrics;
import io.sluice.proxy.runtime.ConnectionSetup;
import io.sluice.proxy.runtime.SniRefusal;
import io.sluice.proxy.runtime.SniRefusedException;

/**
 * An SNI gateway ({@code sniHostIdentifiesNode}): the bootstrap and every broker of its virtual cluster on one TLS port,
 * the {@link SniListener} it shares with the other SNI gateways on that port, told apart by the server name of the
 * ClientHello. Brokers are advertised as {@code brokerHostPattern} with their node id, at the advertised port.
 *
 * <p>A broker name routes only to a node id the cluster's registry knows (from discovery or from a response that named
 * it): node ids come from a client's ClientHello here, and an unknown one must not make the proxy dial somewhere, or
 * grow its per-node meters. A client can only have learnt a broker name from a response, which taught the registry the
 * node too; what is left is a client whose metadata outlived a proxy restart, or a node that just joined. For those, an
 * unknown node id starts a discovery round (at most one a second per gateway, so a client cannot keep the brokers
 * busy) and the connection waits for it; a node still unknown after it, or asked for within the second, is refused
 * ({@link SniRefusal#UNKNOWN_NODE}), and the client retries.</p>
 */
final class SniGateway implements Gateway {

    static final Duration ON_DEMAND_DISCOVERY_INTERVAL = Duration.ofSeconds(1);

    private final VirtualClusterRuntime cluster;
    private final GatewayConfig config;
    private final SniHostIdentifiesNodeConfig sni;
    private final HostPattern bootstrapHost;
    private final HostPattern brokerHosts;
    private final NetworkConfig network;
    private final SslContext sslContext;
    private final GatewaySetup bootstrapSetup;
    private final Map<Integer, GatewaySetup> nodeSetups = new ConcurrentHashMap<>();
    private final AtomicLong nextOnDemandDiscovery = new AtomicLong(System.nanoTime());
    private volatile SniListener listener;

    SniGateway(VirtualClusterRuntime cluster, GatewayConfig config, NetworkConfig network, SslContext sslContext) {
        this.cluster = cluster;
        this.config = config;
        this.sni = config.sniHostIdentifiesNode();
        this.bootstrapHost = HostPattern.parse(sni.bootstrapHost());
        this.brokerHosts = HostPattern.parse(sni.brokerHostPattern());
        this.network = network;
        this.sslContext = sslContext;
        this.bootstrapSetup = new GatewaySetup(cluster, this, network, sslContext, cluster.bootstrapDialer(), cluster.metrics(ProxyMetrics.BOOTSTRAP_NODE));
    }

    @Override
    public String name() {
        return config.name();
    }

    String virtualCluster() {
        return cluster.name();
    }

    SniHostIdentifiesNodeConfig sni() {
        return sni;
    }

    void listener(SniListener listener) {
        this.listener = listener;
    }

    @Override
    public boolean isBound() {
        SniListener bound = listener;
        return bound != null && bound.isBound();
    }

    @Override
    public InetSocketAddress bootstrapAddress() {
        return listener.localAddress();
    }

    @Override
    public void nodeDiscovered(int nodeId) {
        // Nothing to bind: every broker is on the listener's port.
    }

    @Override
    public CompletionStage<HostPort> advertise(int nodeId, String brokerHost, int brokerPort) {
        cluster.registry().learn(nodeId, new HostPort(brokerHost, brokerPort));
        return CompletableFuture.completedFuture(new HostPort(brokerHosts.host(nodeId), sni.effectiveAdvertisedPort()));
    }

    /** The setup for a server name of this gateway, or null when the name is not this gateway's. */
    CompletionStage<ConnectionSetup> route(String serverName) {
        if (bootstrapHost.matches(serverName)) {
            return CompletableFuture.completedFuture(bootstrapSetup);
        }
        OptionalInt nodeId = brokerHosts.nodeId(serverName);
        return nodeId.isPresent() ? nodeRoute(nodeId.getAsInt()) : null;
    }

    private CompletionStage<ConnectionSetup> nodeRoute(int nodeId) {
        if (cluster.registry().lookup(nodeId).isPresent()) {
            return CompletableFuture.completedFuture(nodeSetup(nodeId));
        }
        ClusterDiscovery discovery = cluster.discovery();
        if (discovery == null || !mayDiscoverNow()) {
            return CompletableFuture.failedFuture(unknownNode(nodeId, discovery == null ? "discovery is off; the proxy learns brokers from the responses clients get"
                    : "a discovery round ran less than " + ON_DEMAND_DISCOVERY_INTERVAL.toMillis() + " ms ago"));
        }
        return discovery.refreshNow(network.connectTimeout()).thenApply(done -> {
            if (cluster.registry().lookup(nodeId).isEmpty()) {
                throw unknownNode(nodeId, "not found by a discovery round either");
            }
            return nodeSetup(nodeId);
        });
    }

    private boolean mayDiscoverNow() {
        long now = System.nanoTime();
        long next = nextOnDemandDiscovery.get();
        return now - next >= 0 && nextOnDemandDiscovery.compareAndSet(next, now + ON_DEMAND_DISCOVERY_INTERVAL.toNanos());
    }

    private SniRefusedException unknownNode(int nodeId, String why) {
        return new SniRefusedException(SniRefusal.UNKNOWN_NODE, "virtual cluster " + cluster.name() + " gateway " + name()
                + " knows no broker node " + nodeId + " (" + why + ")");
    }

    private GatewaySetup nodeSetup(int nodeId) {
        return nodeSetups.computeIfAbsent(nodeId, id -> new GatewaySetup(cluster, this, network, sslContext, cluster.nodeDialer(id),
                cluster.metrics(Integer.toString(id))));
    }

    /** For the listener's start-up line. */
    String describe() {
        return "virtual cluster " + cluster.name() + " gateway " + name() + ": bootstrap '" + bootstrapHost + "', broker N '" + brokerHosts
                + "', advertised on port " + sni.effectiveAdvertisedPort();
    }
}
