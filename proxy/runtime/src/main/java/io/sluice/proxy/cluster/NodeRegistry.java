package io.sluice.proxy.cluster;

import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import io.sluice.config.HostPort;

/**
 * The real addresses of a target cluster's brokers by node id, learned from every response that names
 * one (and from discovery). A client connecting to a node port is sent to the address recorded here.
 */
public final class NodeRegistry {

    private static final Logger LOG = LoggerFactory.getLogger(NodeRegistry.class);

    private final String virtualCluster;
    private final Map<Integer, HostPort> nodes = new ConcurrentHashMap<>();

    public NodeRegistry(String virtualCluster) {
        this.virtualCluster = virtualCluster;
    }

    public void learn(int nodeId, HostPort address) {
        HostPort previous = nodes.put(nodeId, address);
        if (!address.equals(previous)) {
            LOG.info("virtual cluster {}: broker node {} is at {}{}", virtualCluster, nodeId, address, previous == null ? "" : " (was " + previous + ")");
        }
    }

    public Optional<HostPort> lookup(int nodeId) {
        return Optional.ofNullable(nodes.get(nodeId));
    }

    public Map<Integer, HostPort> snapshot() {
        return Map.copyOf(nodes);
    }
}
