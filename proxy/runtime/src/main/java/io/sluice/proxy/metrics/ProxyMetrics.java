package io.sluice.proxy.metrics;

import io.micrometer.core.instrument.MeterRegistry;

import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;

/**
 * Entry point to the proxy's meters. Connection handlers look up their {@link VirtualClusterMetrics} once
 * (when the channel becomes active) and keep it, so the per-request path never touches this map.
 */
public final class ProxyMetrics {

    private final MeterRegistry registry;
    /** The {@code node_id} of connections to a gateway's bootstrap port, which are not tied to one broker. */
    public static final String BOOTSTRAP_NODE = "bootstrap";

    private final ConcurrentMap<Port, VirtualClusterMetrics> byPort = new ConcurrentHashMap<>();

    public ProxyMetrics(MeterRegistry registry) {
        this.registry = Objects.requireNonNull(registry, "registry");
    }

    /**
     * The meters of one virtual cluster's connections through one kind of port.
     *
     * @param nodeId the broker node id of a node port, or {@link #BOOTSTRAP_NODE}. The values are bounded by the
     *               ports the proxy binds, which only brokers (not clients) make it bind.
     */
    public VirtualClusterMetrics forNode(String virtualCluster, String nodeId) {
        Port port = new Port(Objects.requireNonNull(virtualCluster, "virtualCluster"), Objects.requireNonNull(nodeId, "nodeId"));
        return byPort.computeIfAbsent(port, p -> new VirtualClusterMetrics(registry, p.virtualCluster(), p.nodeId()));
    }

    public MeterRegistry registry() {
        return registry;
    }

    private record Port(String virtualCluster, String nodeId) {
    }
}
