package io.sluice.bridge.server;

import java.net.InetAddress;
import java.util.HashMap;
import java.util.Iterator;
import java.util.Map;
import java.util.function.LongSupplier;

import io.sluice.net.ClientHost;
import io.sluice.bridge.config.ConnectionsConfig;

/**
 * The node's count of connections and handshakes in progress, in total and per client address, and each address's
 * token bucket for new connections. One lock for all: it is taken a few times per connection, never per message.
 * <p>
 * An address is an IPv4 address, or the /64 prefix of an IPv6 address: one IPv6 host usually holds a whole /64, so
 * counting single IPv6 addresses would let it open connections without limit. An address's entry lives while it holds
 * connections or handshakes, and until its bucket has filled again after that, so the map holds only addresses seen
 * recently and is swept now and then.
 */
final class ConnectionGate {

    static final String MAX_CONNECTIONS = "max_connections";
    static final String MAX_CONNECTIONS_PER_IP = "max_connections_per_ip";
    static final String MAX_HANDSHAKES = "max_handshakes";
    static final String MAX_HANDSHAKES_PER_IP = "max_handshakes_per_ip";
    static final String RATE_PER_IP = "rate_per_ip";

    private static final int SWEEP_EVERY = 4096;

    private final ConnectionsConfig config;
    private final LongSupplier nanoClock;
    private final Map<InetAddress, PerAddress> addresses = new HashMap<>();
    private int connections;
    private int handshakes;
    private int untilSweep = SWEEP_EVERY;

    ConnectionGate(ConnectionsConfig config, LongSupplier nanoClock) {
        this.config = config;
        this.nanoClock = nanoClock;
    }

    private static final class PerAddress {
        int connections;
        int handshakes;
        double tokens;
        long refilledAt;
    }

    /**
     * A new TCP connection from {@code peer}. The totals always apply; the per-address limits only when the peer is
     * not a trusted proxy (a proxy carries many clients; they are counted by their forwarded address at the upgrade).
     *
     * @return null when admitted (it then holds a connection and a handshake), else the reason it was refused
     */
    synchronized String accept(InetAddress peer, boolean perAddressLimits) {
        if (connections >= config.maxConnections()) {
            return MAX_CONNECTIONS;
        }
        if (handshakes >= config.maxHandshakes()) {
            return MAX_HANDSHAKES;
        }
        if (perAddressLimits) {
            PerAddress a = entry(peer);
            if (a.connections >= config.maxConnectionsPerIp()) {
                return MAX_CONNECTIONS_PER_IP;
            }
            if (a.handshakes >= config.maxHandshakesPerIp()) {
                return MAX_HANDSHAKES_PER_IP;
            }
            if (!take(a)) {
                return RATE_PER_IP;
            }
            a.connections++;
            a.handshakes++;
        }
        connections++;
        handshakes++;
        return null;
    }

    /**
     * An upgrade through a trusted proxy on behalf of {@code client}: its rate and connection count are checked and,
     * when admitted, it holds a connection until {@link #forwardedClosed}.
     */
    synchronized String acceptForwarded(InetAddress client) {
        PerAddress a = entry(client);
        if (a.connections >= config.maxConnectionsPerIp()) {
            return MAX_CONNECTIONS_PER_IP;
        }
        if (!take(a)) {
            return RATE_PER_IP;
        }
        a.connections++;
        return null;
    }

    synchronized void handshakeEnded(InetAddress peer, boolean perAddressLimits) {
        handshakes--;
        if (perAddressLimits) {
            addresses.get(key(peer)).handshakes--;
        }
    }

    synchronized void closed(InetAddress peer, boolean perAddressLimits) {
        connections--;
        if (perAddressLimits) {
            addresses.get(key(peer)).connections--;
        }
    }

    synchronized void forwardedClosed(InetAddress client) {
        addresses.get(key(client)).connections--;
    }

    synchronized int connections() {
        return connections;
    }

    synchronized int handshakes() {
        return handshakes;
    }

    private PerAddress entry(InetAddress address) {
        if (--untilSweep <= 0) {
            untilSweep = SWEEP_EVERY;
            sweep();
        }
        return addresses.computeIfAbsent(key(address), k -> {
            PerAddress a = new PerAddress();
            a.tokens = config.connectionBurstPerIp();
            a.refilledAt = nanoClock.getAsLong();
            return a;
        });
    }

    private boolean take(PerAddress a) {
        refill(a);
        if (a.tokens < 1) {
            return false;
        }
        a.tokens -= 1;
        return true;
    }

    private void refill(PerAddress a) {
        long now = nanoClock.getAsLong();
        double earned = (now - a.refilledAt) / 1e9 * config.connectionsPerSecondPerIp();
        a.tokens = Math.min(config.connectionBurstPerIp(), a.tokens + earned);
        a.refilledAt = now;
    }

    /** Forgets addresses that hold nothing and whose bucket is full again: they are as good as new. */
    private void sweep() {
        for (Iterator<PerAddress> it = addresses.values().iterator(); it.hasNext(); ) {
            PerAddress a = it.next();
            if (a.connections == 0 && a.handshakes == 0) {
                refill(a);
                if (a.tokens >= config.connectionBurstPerIp()) {
                    it.remove();
                }
            }
        }
    }

    /** The address limits are kept by: IPv4 as it is, IPv6 by its /64 (the proxy counts the same way). */
    static InetAddress key(InetAddress address) {
        return ClientHost.key(address);
    }
}
