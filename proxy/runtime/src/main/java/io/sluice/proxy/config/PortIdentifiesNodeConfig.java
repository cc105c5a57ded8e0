package io.sluice.proxy.config;

import java.util.List;
import java.util.Optional;
import java.util.OptionalInt;

import com.fasterxml.jackson.annotation.JsonCreator;
import com.fasterxml.jackson.annotation.JsonProperty;
import io.sluice.config.HostPort;

/**
 * The "port identifies node" scheme: clients bootstrap on one port and reach each broker on a port of its own.
 *
 * @param bootstrapAddress where clients bootstrap; the port must be fixed (not 0)
 * @param advertisedBrokerAddressPattern the address handed to clients for each broker, may contain {@code $(nodeId)}
 *        and a {@code :port}; null means the bootstrap host
 * @param nodeStartPort the port of the first broker; YAML default is the bootstrap port + 1
 * @param nodeIdRanges the node ids the target cluster uses; empty means any id, at {@code nodeStartPort + nodeId}
 */
public record PortIdentifiesNodeConfig(HostPort bootstrapAddress,
                                       String advertisedBrokerAddressPattern,
                                       int nodeStartPort,
                                       List<NodeIdRange> nodeIdRanges) {

    public static final String NODE_ID_TOKEN = "$(nodeId)";

    public PortIdentifiesNodeConfig {
        nodeIdRanges = nodeIdRanges == null ? List.of() : List.copyOf(nodeIdRanges);
    }

    /** Defaults as documented: the node ports follow the bootstrap port, any node id is accepted. */
    public static PortIdentifiesNodeConfig of(HostPort bootstrapAddress) {
        return new PortIdentifiesNodeConfig(bootstrapAddress, null, bootstrapAddress.port() + 1, List.of());
    }

    @JsonCreator
    static PortIdentifiesNodeConfig fromYaml(@JsonProperty("bootstrapAddress") HostPort bootstrapAddress,
                                             @JsonProperty("advertisedBrokerAddressPattern") String advertisedBrokerAddressPattern,
                                             @JsonProperty("nodeStartPort") Integer nodeStartPort,
                                             @JsonProperty("nodeIdRanges") List<NodeIdRange> nodeIdRanges) {
        int start = nodeStartPort != null ? nodeStartPort : bootstrapAddress != null ? bootstrapAddress.port() + 1 : 0;
        return new PortIdentifiesNodeConfig(bootstrapAddress, advertisedBrokerAddressPattern, start, nodeIdRanges);
    }

    /**
     * The proxy port that stands for broker {@code nodeId}. With ranges, ports are handed out consecutively from
     * {@code nodeStartPort} through the ranges in the order they are listed, so sparse node ids still get a compact
     * block of ports.
     */
    public OptionalInt portForNode(int nodeId) {
        if (nodeIdRanges.isEmpty()) {
            return nodeId < 0 ? OptionalInt.empty() : checked((long) nodeStartPort + nodeId);
        }
        long offset = 0;
        for (NodeIdRange range : nodeIdRanges) {
            if (range.contains(nodeId)) {
                return checked(nodeStartPort + offset + ((long) nodeId - range.start()));
            }
            offset += range.size();
        }
        return OptionalInt.empty();
    }

    /**
     * The address to advertise to clients for broker {@code nodeId}: the pattern with {@code $(nodeId)} filled in (or
     * the bootstrap host) and the node's port. When the pattern carries a port, that port stands for the first node port
     * and the others keep their offset from it, which is what a port-mapping load balancer in front needs.
     */
    public Optional<HostPort> advertisedAddress(int nodeId) {
        OptionalInt nodePort = portForNode(nodeId);
        if (nodePort.isEmpty() || bootstrapAddress == null) {
            return Optional.empty();
        }
        if (advertisedBrokerAddressPattern == null) {
            return Optional.of(new HostPort(bootstrapAddress.host(), nodePort.getAsInt()));
        }
        AdvertisedPattern pattern = AdvertisedPattern.parse(advertisedBrokerAddressPattern, nodeId);
        if (pattern.port().isEmpty()) {
            return Optional.of(new HostPort(pattern.host(), nodePort.getAsInt()));
        }
        OptionalInt port = checked((long) pattern.port().getAsInt() + nodePort.getAsInt() - nodeStartPort);
        return port.isPresent() ? Optional.of(new HostPort(pattern.host(), port.getAsInt())) : Optional.empty();
    }

    /** How many node ports the ranges reserve; 0 without ranges, where the count depends on the cluster. */
    long rangedPortCount() {
        return nodeIdRanges.stream().mapToLong(NodeIdRange::size).sum();
    }

    private static OptionalInt checked(long port) {
        return port >= 1 && port <= 65535 ? OptionalInt.of((int) port) : OptionalInt.empty();
    }
}
