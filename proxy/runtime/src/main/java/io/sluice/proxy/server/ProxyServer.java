package io.sluice.proxy.server;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import io.micrometer.core.instrument.Gauge;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import io.netty.channel.Channel;
import io.netty.channel.EventLoopGroup;
import io.sluice.build.BuildInfo;
import io.sluice.config.ConfigException;
import io.sluice.proxy.config.FilterDefinition;
import io.sluice.proxy.config.GatewayConfig;
import io.sluice.config.HostPort;
import io.sluice.proxy.config.ProxyConfig;
import io.sluice.proxy.config.VirtualClusterConfig;
import io.sluice.management.ManagementServer;
import io.sluice.metrics.JvmMetrics;
import io.sluice.management.ManagementServer.Readiness;
import io.sluice.proxy.filter.FilterFactory;
import io.sluice.proxy.metrics.ProxyMetrics;
import io.sluice.proxy.metrics.SniMetrics;
import io.sluice.proxy.runtime.SniRefusal;
import io.sluice.proxy.runtime.OpenConnections;
import io.sluice.tls.SslContexts;
import io.sluice.transport.Transport;

/**
 * The running proxy: event loops, every virtual cluster's gateways, discovery, and the management port.
 * {@link #start} returns once every bootstrap port accepts connections.
 */
public final class ProxyServer implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(ProxyServer.class);
    // Each connection is bounded by itself between checks; the check only bounds their sum, so it need not be eager.
    private static final Duration BUDGET_CHECK_INTERVAL = Duration.ofMillis(100);
    /** An event loop that has not run a task for this long serves none of its connections: /healthz fails. */
    static final Duration LIVENESS_STALL = Duration.ofSeconds(10);
    private static final Duration HEARTBEAT_INTERVAL = Duration.ofSeconds(1);

    private final ProxyConfig config;
    private final PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
    private final ProxyMetrics metrics = new ProxyMetrics(registry);
    private final Transport transport;
    private final EventLoopGroup group;
    /** Unregisters the GC notification listeners, which the JVM would otherwise keep, with this registry, forever. */
    private final AutoCloseable jvmMetrics;
    private final ScheduledExecutorService background = Executors.newSingleThreadScheduledExecutor(r -> {
        Thread t = new Thread(r, "sluice-discovery");
        t.setDaemon(true);
        return t;
    });
    // Discovery rounds and TCP probes wait on brokers for seconds: never on the thread that enforces the budget.
    private final ScheduledExecutorService upstreamChecks = Executors.newSingleThreadScheduledExecutor(r -> {
        Thread t = new Thread(r, "sluice-upstream-check");
        t.setDaemon(true);
        return t;
    });
    private final EventLoopHeartbeat heartbeat;
    private final List<VirtualClusterRuntime> clusters = new ArrayList<>();
    private final List<SniListener> sniListeners = new ArrayList<>();
    private final FilterDefinitions filterDefinitions;
    private final OpenConnections connections = new OpenConnections();
    private volatile boolean stopping;
    private ManagementServer management;

    private ProxyServer(ProxyConfig config) {
        this.config = config;
        this.transport = Transport.forConfig(config.network().transport(), "network.transport");
        this.group = transport.newGroup(config.network().workerThreads(), "sluice-proxy");
        try {
            this.filterDefinitions = new FilterDefinitions(config.filterDefinitions(), registry, group.next());
        } catch (RuntimeException e) {
            // No server to close yet: its threads must not outlive a bad filter configuration.
            group.shutdownGracefully(0, 2, TimeUnit.SECONDS);
            throw e;
        }
        this.jvmMetrics = JvmMetrics.bind(registry);
        this.heartbeat = new EventLoopHeartbeat(group, LIVENESS_STALL);
    }

    public static ProxyServer start(ProxyConfig config) {
        ProxyServer server = new ProxyServer(config);
        try {
            server.startAll();
            return server;
        } catch (RuntimeException e) {
            server.close();
            throw e;
        }
    }

    /**
     * What {@link #start} checks beyond {@link io.sluice.config.ConfigLoader}: the TLS material each virtual
     * cluster loads (gateway certificates, trust for the target cluster), and every filter definition's type and config
     * as the filter's own {@link io.sluice.proxy.filter.FilterFactory#validate} checks it. Binds no port and reaches no
     * broker or KMS; {@code sluice proxy --validate} runs it.
     *
     * @throws ConfigException naming each bad field
     */
    public static void validate(ProxyConfig config) {
        List<String> problems = new ArrayList<>();
        for (int i = 0; i < config.virtualClusters().size(); i++) {
            VirtualClusterConfig vc = config.virtualClusters().get(i);
            String path = "virtualClusters[" + i + "]";
            if (vc.targetCluster().tls() != null) {
                tlsProblems(problems, () -> SslContexts.forClient(vc.targetCluster().tls(), path + ".targetCluster.tls"));
            }
            for (int g = 0; g < vc.gateways().size(); g++) {
                GatewayConfig gateway = vc.gateways().get(g);
                if (gateway.tls() != null) {
                    String gatewayPath = path + ".gateways[" + g + "].tls";
                    tlsProblems(problems, () -> SslContexts.forServer(gateway.tls(), gatewayPath));
                }
            }
        }
        try {
            FilterDefinitions.validate(config.filterDefinitions());
        } catch (ConfigException e) {
            problems.addAll(e.problems());
        }
        if (!problems.isEmpty()) {
            throw new ConfigException(problems);
        }
    }

    /**
     * Whether the filter type named {@code type} (as a filter definition names it) authenticates clients; false for a
     * type no plugin provides, which {@link #validate} reports.
     */
    public static boolean authenticatesClients(String type) {
        FilterFactory<?, ?> factory = FilterDefinitions.findPlugin(FilterFactory.class, type);
        return factory != null && factory.authenticatesClients();
    }

    private static void tlsProblems(List<String> problems, Runnable load) {
        try {
            load.run();
        } catch (ConfigException e) {
            problems.addAll(e.problems());
        }
    }

    private void startAll() {
        Map<String, SniPort> sniGateways = new LinkedHashMap<>();
        for (int v = 0; v < config.virtualClusters().size(); v++) {
            VirtualClusterConfig vc = config.virtualClusters().get(v);
            List<FilterDefinitions.Initialised> chain = new ArrayList<>();
            for (FilterDefinition definition : config.filtersFor(vc)) {
                chain.add(filterDefinitions.get(definition.name()));
            }
            VirtualClusterRuntime runtime = new VirtualClusterRuntime(vc, chain, metrics, registry, group, transport, config.network(), connections);
            clusters.add(runtime);
            for (int g = 0; g < runtime.gateways().size(); g++) {
                String field = "virtualClusters[" + v + "].gateways[" + g + "]";
                if (runtime.gateways().get(g) instanceof PortGateway gateway) {
                    bindBootstrap(gateway, field + ".portIdentifiesNode.bootstrapAddress");
                } else if (runtime.gateways().get(g) instanceof SniGateway gateway) {
                    sniGateways.computeIfAbsent(listenKey(gateway.sni().listenAddress()), k -> new SniPort(field + ".sniHostIdentifiesNode.listenAddress"))
                            .add(gateway, vc);
                }
            }
            if (vc.targetCluster().discovery()) {
                ClusterDiscovery discovery = new ClusterDiscovery(runtime, upstreamChecks);
                runtime.discovery(discovery);
                discovery.start();
            } else {
                List<HostPort> bootstrap = List.copyOf(vc.targetCluster().bootstrapServers());
                upstreamChecks.scheduleWithFixedDelay(() -> runtime.upstream().probeTcp(bootstrap),
                        0, UpstreamCheck.INTERVAL.toMillis(), TimeUnit.MILLISECONDS);
            }
        }
        bindSniListeners(sniGateways);
        if (config.management().enabled()) {
            background.scheduleWithFixedDelay(heartbeat::beat, 0, HEARTBEAT_INTERVAL.toMillis(), TimeUnit.MILLISECONDS);
            management = new ManagementServer(config.management().bindAddress(), config.management().port(), registry, readinessChecks(),
                    heartbeat::live);
            try {
                management.start();
            } catch (IOException e) {
                throw new UncheckedIOException("cannot start the management endpoint on "
                        + config.management().bindAddress() + ":" + config.management().port() + ": " + e.getMessage(), e);
            }
            LOG.info("management endpoints on http://{}:{}/ (metrics, healthz, readyz)", config.management().bindAddress(), management.port());
        }
        long budget = config.network().effectiveClientOutboundBudgetBytes();
        long allowance = config.network().writeBufferLowWaterMark();
        background.scheduleWithFixedDelay(() -> connections.enforceBudget(budget, allowance),
                BUDGET_CHECK_INTERVAL.toMillis(), BUDGET_CHECK_INTERVAL.toMillis(), TimeUnit.MILLISECONDS);
        Gauge.builder("sluice.client.outbound.queued", connections, OpenConnections::queuedTowardsClients).baseUnit("bytes")
                .description("Bytes written towards clients that they have not taken yet; past network.clientOutboundBudgetBytes ("
                        + budget + ") the connections furthest behind stop reading from their brokers")
                .register(registry);
        LOG.info("Sluice proxy started ({}) with {} transport, {} virtual cluster(s)", BuildInfo.current(), transport.name(), clusters.size());
    }

    /** As the management port does: the address and the field that asked for it, not Netty's bare exception. */
    private static void bindBootstrap(PortGateway gateway, String field) {
        bindNamed(gateway::bindBootstrap, gateway.requestedBootstrapAddress(), field);
    }

    private static void bindNamed(Runnable bind, HostPort address, String field) {
        try {
            bind.run();
        } catch (Exception e) {
            // Netty rethrows the bind's own checked exception (BindException, usually "Address already in use").
            IOException cause = e instanceof IOException io ? io : new IOException(e.toString(), e);
            throw new UncheckedIOException("cannot bind " + field + " " + address + ": " + e.getMessage(), cause);
        }
    }

    /** The SNI gateways of every virtual cluster that listen on one address, and the field that first named it. */
    private static final class SniPort {
        final String field;
        final List<SniGateway> gateways = new ArrayList<>();
        final Map<String, Integer> maxConnectionsByCluster = new LinkedHashMap<>();

        SniPort(String field) {
            this.field = field;
        }

        void add(SniGateway gateway, VirtualClusterConfig cluster) {
            gateways.add(gateway);
            maxConnectionsByCluster.put(cluster.name(), cluster.connectionLimits().maxConnections());
        }

        /** Connections that may wait for their ClientHello at once: what the clusters on the port accept in all. */
        int maxWaiting() {
            long sum = maxConnectionsByCluster.values().stream().mapToLong(Integer::longValue).sum();
            return (int) Math.min(Integer.MAX_VALUE, sum);
        }
    }

    // Validation made gateways sharing a port name the same host, up to case.
    private static String listenKey(HostPort address) {
        return address.host().toLowerCase(java.util.Locale.ROOT) + ":" + address.port();
    }

    private void bindSniListeners(Map<String, SniPort> ports) {
        if (ports.isEmpty()) {
            return;
        }
        SniMetrics sniMetrics = new SniMetrics(registry, SniRefusal.labels());
        for (SniPort port : ports.values()) {
            SniListener listener = new SniListener(port.gateways.get(0).sni().listenAddress(), port.gateways, sniMetrics, config.network(), port.maxWaiting());
            sniListeners.add(listener);
            bindNamed(() -> listener.bind(group, transport, config.network()), listener.address(), port.field);
        }
    }

    private Map<String, Supplier<Readiness>> readinessChecks() {
        Map<String, Supplier<Readiness>> checks = new LinkedHashMap<>();
        // First to fail on SIGTERM, so that load balancers stop sending clients here while the drain runs.
        checks.put("shutdown", () -> stopping ? Readiness.notReady("shutting down") : Readiness.ready("serving"));
        for (VirtualClusterRuntime cluster : clusters) {
            checks.put("virtualCluster:" + cluster.name() + ":gateways", () -> {
                boolean bound = cluster.gateways().stream().allMatch(Gateway::isBound);
                return new Readiness(bound, bound ? "bootstrap ports bound" : "a bootstrap or SNI port is not bound");
            });
            checks.put("virtualCluster:" + cluster.name() + ":upstream", cluster.upstream()::readiness);
        }
        return checks;
    }

    /** The bound bootstrap address of a gateway (useful when the config asked for port 0). */
    public InetSocketAddress bootstrapAddress(String virtualCluster, String gateway) {
        return clusters.stream().filter(c -> c.name().equals(virtualCluster))
                .flatMap(c -> c.gateways().stream()).filter(g -> g.name().equals(gateway))
                .findFirst().map(Gateway::bootstrapAddress)
                .orElseThrow(() -> new IllegalArgumentException("no gateway " + virtualCluster + "/" + gateway));
    }

    public int managementPort() {
        return management == null ? -1 : management.port();
    }

    public PrometheusMeterRegistry meterRegistry() {
        return registry;
    }

    /**
     * Stops gracefully: readiness turns false, the gateway ports stop accepting, every client connection stops reading
     * requests and closes once it has answered those it read, for at most {@code network.shutdownTimeout}; then the
     * rest closes. The management endpoint answers (503 on /readyz) until the connections are gone.
     */
    @Override
    public void close() {
        stopping = true;
        for (SniListener listener : sniListeners) {
            if (listener.channel() != null) {
                listener.channel().close().awaitUninterruptibly();
            }
        }
        for (VirtualClusterRuntime cluster : clusters) {
            for (Gateway gateway : cluster.gateways()) {
                if (gateway instanceof PortGateway ports) {
                    ports.channels().forEach(channel -> channel.close().awaitUninterruptibly());
                }
            }
        }
        drainConnections();
        if (management != null) {
            management.close();
        }
        for (VirtualClusterRuntime cluster : clusters) {
            if (cluster.discovery() != null) {
                cluster.discovery().close();
            }
        }
        background.shutdownNow();
        upstreamChecks.shutdownNow();
        group.shutdownGracefully(0, 2, TimeUnit.SECONDS).syncUninterruptibly();
        filterDefinitions.close();
        try {
            jvmMetrics.close();
        } catch (Exception e) {
            LOG.warn("could not unbind the JVM metrics: {}", e.toString());
        }
        registry.close();
    }

    private void drainConnections() {
        int open = connections.size();
        if (open == 0) {
            return;
        }
        Duration timeout = config.network().shutdownTimeout();
        LOG.info("Shutting down: {} client connection(s) finish the requests they sent (network.shutdownTimeout {} ms)", open, timeout.toMillis());
        try {
            int busy = connections.drain(timeout);
            if (busy > 0) {
                LOG.warn("Shutting down: closed {} client connection(s) with requests unanswered after network.shutdownTimeout", busy);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
