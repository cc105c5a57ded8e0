package io.sluice.proxy.metrics;

import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.binder.jvm.JvmGcMetrics;
import io.micrometer.core.instrument.binder.jvm.JvmMemoryMetrics;
import io.micrometer.core.instrument.binder.jvm.JvmThreadMetrics;
import io.micrometer.core.instrument.binder.system.FileDescriptorMetrics;
import io.micrometer.core.instrument.binder.system.ProcessorMetrics;
import io.micrometer.core.instrument.binder.system.UptimeMetrics;

import io.sluice.proxy.build.BuildInfo;

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

    /**
     * Binds JVM and process meters, and {@code sluice_build_info}. The returned handle unregisters the GC notification listeners; callers that
     * bind once for the life of the process may ignore it.
     */
    public static AutoCloseable bindJvmMetrics(MeterRegistry registry) {
        BuildInfo.current().register(registry);
        new JvmMemoryMetrics().bindTo(registry);
        new ProcessorMetrics().bindTo(registry);
        new JvmThreadMetrics().bindTo(registry);
        new UptimeMetrics().bindTo(registry);
        // A proxy holds two sockets per client connection; running out of descriptors is its most likely resource failure.
        new FileDescriptorMetrics().bindTo(registry);
        JvmGcMetrics gc = new JvmGcMetrics();
        gc.bindTo(registry);
        return gc;
    }

    private record Port(String virtualCluster, String nodeId) {
    }
}
