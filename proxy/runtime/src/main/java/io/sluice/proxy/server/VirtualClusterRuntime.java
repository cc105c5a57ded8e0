package io.sluice.proxy.server;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.function.Function;

import org.apache.kafka.common.protocol.ApiKeys;

import io.netty.channel.EventLoopGroup;
import io.netty.handler.ssl.SslContext;
import io.micrometer.core.instrument.MeterRegistry;
import io.sluice.proxy.cluster.ApiVersionsCache;
import io.sluice.proxy.cluster.ApiVersionsFilter;
import io.sluice.proxy.cluster.BrokerAddressFilter;
import io.sluice.proxy.cluster.NodeRegistry;
import io.sluice.proxy.config.GatewayConfig;
import io.sluice.config.HostPort;
import io.sluice.proxy.config.NetworkConfig;
import io.sluice.proxy.config.PreAuthenticationConfig;
import io.sluice.proxy.config.VirtualClusterConfig;
import io.sluice.proxy.metrics.ProxyMetrics;
import io.sluice.proxy.metrics.VirtualClusterMetrics;
import io.sluice.proxy.runtime.BrokerTroubleLog;
import io.sluice.proxy.runtime.ConnectionLimiter;
import io.sluice.proxy.runtime.NamedFilter;
import io.sluice.proxy.runtime.OpenConnections;
import io.sluice.proxy.runtime.ProxyConnection;
import io.sluice.proxy.runtime.UpstreamDialer;
import io.sluice.tls.SslContexts;
import io.sluice.transport.Transport;

/** One virtual cluster while the proxy runs: its gateways, its broker registry, its filter chain. */
final class VirtualClusterRuntime {

    private final VirtualClusterConfig config;
    private final ProxyMetrics metrics;
    private final NodeRegistry registry;
    private final List<FilterDefinitions.Initialised> filters;
    private final MeterRegistry meterRegistry;
    private final List<Gateway> gateways = new ArrayList<>();
    private final BrokerDialer bootstrapDialer;
    private final Transport transport;
    private final NetworkConfig network;
    private final SslContext upstreamSsl;
    private final ConnectionLimiter limiter;
    private final boolean authenticatesClients;
    private final OpenConnections openConnections;
    private final ApiVersionsCache apiVersions = new ApiVersionsCache();
    private final BrokerTroubleLog brokerTrouble;
    private final UpstreamCheck upstream;
    private ClusterDiscovery discovery;

    VirtualClusterRuntime(VirtualClusterConfig config, List<FilterDefinitions.Initialised> filters, ProxyMetrics metrics,
                          MeterRegistry meterRegistry, EventLoopGroup group, Transport transport, NetworkConfig network,
                          OpenConnections openConnections) {
        this.config = config;
        this.filters = filters;
        this.metrics = metrics;
        this.meterRegistry = meterRegistry;
        this.transport = transport;
        this.network = network;
        this.openConnections = openConnections;
        this.registry = new NodeRegistry(config.name());
        this.brokerTrouble = new BrokerTroubleLog(config.name());
        this.upstream = new UpstreamCheck(config.name());
        this.limiter = new ConnectionLimiter(config.name(), config.connectionLimits());
        this.authenticatesClients = filters.stream().anyMatch(f -> f.factory().authenticatesClients());
        this.upstreamSsl = config.targetCluster().tls() == null ? null : SslContexts.forClient(config.targetCluster().tls());
        List<HostPort> bootstrap = List.copyOf(config.targetCluster().bootstrapServers());
        this.bootstrapDialer = dialer(connection -> CompletableFuture.completedFuture(bootstrap));
        for (GatewayConfig g : config.gateways()) {
            SslContext gatewaySsl = g.tls() == null ? null : SslContexts.forServer(g.tls());
            gateways.add(g.sniHostIdentifiesNode() != null ? new SniGateway(this, g, network, gatewaySsl)
                    : new PortGateway(this, g, group, transport, network, gatewaySsl));
        }
    }

    String name() {
        return config.name();
    }

    VirtualClusterConfig config() {
        return config;
    }

    /** @param nodeId a broker node id, or {@link ProxyMetrics#BOOTSTRAP_NODE} */
    VirtualClusterMetrics metrics(String nodeId) {
        return metrics.forNode(config.name(), nodeId);
    }

    NodeRegistry registry() {
        return registry;
    }

    List<Gateway> gateways() {
        return gateways;
    }

    void discovery(ClusterDiscovery discovery) {
        this.discovery = discovery;
    }

    ClusterDiscovery discovery() {
        return discovery;
    }

    ApiVersionsCache apiVersions() {
        return apiVersions;
    }

    /** Whether the target cluster was reachable at the last check, for readiness. */
    UpstreamCheck upstream() {
        return upstream;
    }

    BrokerTroubleLog brokerTrouble() {
        return brokerTrouble;
    }

    OpenConnections openConnections() {
        return openConnections;
    }

    ConnectionLimiter limiter() {
        return limiter;
    }

    /** The limits for unauthenticated connections, or null when no filter in the chain authenticates clients. */
    PreAuthenticationConfig preAuthentication() {
        return authenticatesClients ? network.preAuthentication() : null;
    }

    UpstreamDialer bootstrapDialer() {
        return bootstrapDialer;
    }

    /**
     * For a client on node N's port: the address the registry has for N. A port can outlive what the
     * registry knows (a client reconnecting after a proxy restart, say), so an unknown node triggers a
     * discovery round before giving up.
     */
    UpstreamDialer nodeDialer(int nodeId) {
        return dialer(connection -> registry.lookup(nodeId)
                .<CompletionStage<List<HostPort>>>map(address -> CompletableFuture.completedFuture(List.of(address)))
                .orElseGet(() -> {
                    if (discovery == null) {
                        return CompletableFuture.failedFuture(new IllegalStateException("broker node " + nodeId + " is unknown"));
                    }
                    return discovery.refreshNow(Duration.ofMillis(network.connectTimeout().toMillis()))
                            .thenApply(done -> List.of(registry.lookup(nodeId)
                                    .orElseThrow(() -> new IllegalStateException("broker node " + nodeId + " is not in the target cluster"))));
                }));
    }

    private BrokerDialer dialer(Function<ProxyConnection, CompletionStage<List<HostPort>>> targets) {
        return new BrokerDialer(targets, transport, network, upstreamSsl, config.targetCluster().tls(), config.targetCluster().sasl());
    }

    /** User filters in configured order, then the built-in ones nearest the broker. */
    List<NamedFilter> createFilters(ProxyConnection connection, Gateway gateway) {
        List<NamedFilter> chain = new ArrayList<>(filters.size() + 2);
        for (FilterDefinitions.Initialised def : filters) {
            chain.add(new NamedFilter(def.name(),
                    def.create(new FilterDefinitions.FactoryContext(def.name(), meterRegistry, connection.frontend().eventLoop()))));
        }
        // A filter that handles Fetch requests may attach response hooks to them, which decode their responses.
        short fetch = ApiKeys.FETCH.latestVersion(true);
        boolean fetchDecodedAnyway = chain.stream().anyMatch(f -> f.responses() != null && f.responses().shouldHandleResponse(ApiKeys.FETCH, fetch)
                && f.responses().requiresDecodedResponse(ApiKeys.FETCH, fetch)
                || f.requests() != null && f.requests().shouldHandleRequest(ApiKeys.FETCH, fetch));
        chain.add(new NamedFilter("broker-address", new BrokerAddressFilter(gateway)));
        chain.add(new NamedFilter("api-versions", new ApiVersionsFilter(fetchDecodedAnyway ? Map.of()
                : Map.of(ApiKeys.FETCH, ApiVersionsFilter.FETCH_WITHOUT_NODE_ENDPOINTS))));
        return chain;
    }
}
