package io.sluice.proxy.runtime;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;
import java.util.concurrent.atomic.AtomicInteger;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import io.netty.channel.Channel;
import io.sluice.net.ClientHost;
import io.sluice.proxy.config.ConnectionLimitsConfig;
import io.sluice.logging.RateLimitedLog;
import io.sluice.proxy.metrics.VirtualClusterMetrics;

/**
 * Counts a virtual cluster's open client connections, in total and per client IP (per /64 for IPv6), over all its gateways
 * and ports, and refuses the one over a limit as it is accepted: closed before a byte is read from it or a
 * broker connection opened for it. Shared by the cluster's event loops, hence the atomics.
 */
public final class ConnectionLimiter {

    private static final Logger LOG = LoggerFactory.getLogger(ConnectionLimiter.class);

    static final String MAX_CONNECTIONS = "max_connections";
    static final String MAX_CONNECTIONS_PER_CLIENT_IP = "max_connections_per_client_ip";

    private final String virtualCluster;
    private final ConnectionLimitsConfig limits;
    private final AtomicInteger open = new AtomicInteger();
    private final ConcurrentMap<InetAddress, AtomicInteger> openByAddress = new ConcurrentHashMap<>();
    private final RateLimitedLog refusals = new RateLimitedLog(LOG);

    public ConnectionLimiter(String virtualCluster, ConnectionLimitsConfig limits) {
        this.virtualCluster = virtualCluster;
        this.limits = limits;
    }

    /**
     * Counts the new connection, to be uncounted when it closes; false (counted nowhere, refusal counted and
     * logged) when it would exceed a limit.
     *
     * @param metrics the meters of the port it came in on, which count a refusal
     */
    boolean tryAccept(Channel channel, VirtualClusterMetrics metrics) {
        InetAddress address = address(channel.remoteAddress());
        if (open.incrementAndGet() > limits.maxConnections()) {
            open.decrementAndGet();
            refuse(MAX_CONNECTIONS, channel, metrics, "the virtual cluster has " + limits.maxConnections() + " connections open (connectionLimits.maxConnections)");
            return false;
        }
        if (address != null) {
            AtomicInteger fromAddress = openByAddress.compute(address, (a, n) -> {
                AtomicInteger count = n == null ? new AtomicInteger() : n;
                count.incrementAndGet();
                return count;
            });
            if (fromAddress.get() > limits.maxConnectionsPerClientIp()) {
                release(address);
                refuse(MAX_CONNECTIONS_PER_CLIENT_IP, channel, metrics, address.getHostAddress() + " has " + limits.maxConnectionsPerClientIp()
                        + " connections open (connectionLimits.maxConnectionsPerClientIp)");
                return false;
            }
        }
        channel.closeFuture().addListener(f -> release(address));
        return true;
    }

    private void release(InetAddress address) {
        open.decrementAndGet();
        if (address != null) {
            // Decrement and drop the entry at zero atomically, so the map holds only addresses with connections.
            openByAddress.computeIfPresent(address, (a, n) -> n.decrementAndGet() == 0 ? null : n);
        }
    }

    private void refuse(String reason, Channel channel, VirtualClusterMetrics metrics, String why) {
        metrics.connectionRefused(reason);
        refusals.log("virtual cluster {}: refused connection from {}: {}", virtualCluster, channel.remoteAddress(), why);
    }

    /** The client host the per-IP limit counts: IPv6 clients by their /64, as the bridge counts them. */
    private static InetAddress address(SocketAddress remote) {
        return remote instanceof InetSocketAddress inet && inet.getAddress() != null ? ClientHost.key(inet.getAddress()) : null;
    }
}
