package io.sluice.bridge.server;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.List;
import java.util.concurrent.TimeUnit;

import io.netty.channel.Channel;
import io.netty.util.concurrent.ScheduledFuture;
import io.sluice.bridge.config.AddressBlock;
import io.sluice.bridge.config.ConnectionsConfig;
import io.sluice.bridge.http.Http2Connections;
import io.sluice.bridge.http.KeepAlive;
import io.sluice.bridge.http.RequestDeadline;
import io.sluice.bridge.metrics.BridgeMetrics;

/**
 * One connection's place in the {@link ConnectionGate}: taken at accept, its handshake slot given back at the upgrade
 * (or close), everything given back exactly once at close. Also the handshake deadline: a connection not upgraded by
 * {@code connections.handshakeTimeout} after the accept is closed, whatever it sent or did not send. Event loop only,
 * apart from construction. A connection that stays HTTP (session and publish requests, keep-alive) has the
 * {@link RequestDeadline} (the same value) as its idle timeout, counted from its last answer ({@link KeepAlive}). An HTTP/2 connection shares it among
 * its streams ({@link #stream}) and leaves the handshake pool with its first request completed authenticated.
 */
final class ConnectionAdmission implements KeepAlive {

    private final ConnectionGate gate;
    private final BridgeMetrics metrics;
    private final Channel channel;
    private final InetAddress peer;
    private final boolean fromTrustedProxy;
    private boolean handshaking = true;
    private boolean released;
    private InetAddress forwardedClient;
    private ScheduledFuture<?> deadline;
    private long requestDeadlineMillis;
    // HTTP/2: streams answering a request now; the connection is busy while there is one.
    private int busyStreams;

    private ConnectionAdmission(ConnectionGate gate, BridgeMetrics metrics, Channel channel, InetAddress peer, boolean fromTrustedProxy) {
        this.gate = gate;
        this.metrics = metrics;
        this.channel = channel;
        this.peer = peer;
        this.fromTrustedProxy = fromTrustedProxy;
    }

    /**
     * Admits a new connection, or closes it at once and returns null. Nothing has been read from it: the limits here
     * can only use the TCP peer address.
     */
    static ConnectionAdmission admit(Channel channel, ConnectionGate gate, ConnectionsConfig config, List<AddressBlock> trustedProxies,
                                     BridgeMetrics metrics, RefusalLog log) {
        InetAddress peer = ((InetSocketAddress) channel.remoteAddress()).getAddress();
        boolean trusted = trusted(peer, trustedProxies);
        String refused = gate.accept(peer, !trusted);
        if (refused != null) {
            metrics.connectionRefused(refused);
            log.refused(refused, peer.getHostAddress());
            channel.close();
            return null;
        }
        ConnectionAdmission admission = new ConnectionAdmission(gate, metrics, channel, peer, trusted);
        channel.closeFuture().addListener(f -> admission.release());
        admission.requestDeadlineMillis = RequestDeadline.of(config).toMillis();
        admission.deadline = channel.eventLoop().schedule(admission::handshakeTimedOut,
                config.handshakeTimeout().toMillis(), TimeUnit.MILLISECONDS);
        return admission;
    }

    static boolean trusted(InetAddress address, List<AddressBlock> trustedProxies) {
        for (AddressBlock block : trustedProxies) {
            if (block.contains(address)) {
                return true;
            }
        }
        return false;
    }

    InetAddress peer() {
        return peer;
    }

    boolean fromTrustedProxy() {
        return fromTrustedProxy;
    }

    /** Whether the connection is still in the handshake pool: not upgraded, no request completed authenticated on HTTP/2. */
    boolean handshaking() {
        return handshaking;
    }

    /**
     * Counts the upgrade (or event stream) {@code via} carries against the forwarded client's limits; null when
     * admitted, else the reason. On HTTP/1.1 {@code via} is the connection, which counts once, for the client it names
     * last. An HTTP/2 stream is a request of its own, maybe for another client of the same proxy: each is counted for its
     * client until that stream closes, without touching the others'.
     */
    String admitForwarded(InetAddress client, Channel via) {
        if (via != channel) {
            String refused = gate.acceptForwarded(client);
            if (refused == null) {
                via.closeFuture().addListener(f -> gate.forwardedClosed(client));
            }
            return refused;
        }
        if (forwardedClient != null) {
            // A second upgrade request on the same connection (the first one failed inside the WebSocket handshake):
            // the connection counts once, for the client it names last.
            gate.forwardedClosed(forwardedClient);
            forwardedClient = null;
        }
        String refused = gate.acceptForwarded(client);
        if (refused == null) {
            forwardedClient = client;
        }
        return refused;
    }

    /** The WebSocket upgrade is done: from here on {@code auth.connectTimeout} bounds the wait for {@code connect}. */
    void upgraded() {
        cancelDeadline();
        endHandshake();
    }

    /**
     * An HTTP request (session, publish) is being answered: the connection is not cut while it waits, for Kafka's acks
     * say, however long that takes (Kafka's own delivery timeout bounds it).
     */
    @Override
    public void busy() {
        cancelDeadline();
    }

    /** Cancels the deadline and lets go of it: an upgraded connection would otherwise hold the spent task for its life. */
    private void cancelDeadline() {
        if (deadline != null) {
            deadline.cancel(false);
            deadline = null;
        }
    }

    /**
     * Every HTTP request has been answered: a keep-alive connection that never upgrades gets the request deadline
     * (the handshake timeout's value) from now, as its idle timeout; it keeps its handshake slot meanwhile, like any connection not upgraded.
     */
    @Override
    public void idle() {
        if (handshaking && !released && channel.isActive()) {
            cancelDeadline();
            deadline = channel.eventLoop().schedule(this::handshakeTimedOut, requestDeadlineMillis, TimeUnit.MILLISECONDS);
        }
    }

    /**
     * One HTTP/2 stream's {@link KeepAlive}, the same deadline shared the way one HTTP/1.1 connection shares it among
     * its requests: the connection is busy (no deadline) while any of its streams is answering a request, and its
     * deadline starts again once none is. A request completed with a valid token (each stream is one request) takes the
     * connection out of the handshake pool, as a WebSocket upgrade does; until then a stream's unfinished request holds
     * the connection no longer than the deadline. HTTP/1.1 keeps the handshake slot of a connection that only publishes
     * (its deadline is also its idle timeout); HTTP/2 has its own idle timeout ({@link Http2Connections}).
     */
    KeepAlive stream(Channel stream) {
        KeepAlive view = new KeepAlive() {
            private boolean busy;

            @Override
            public void busy() {
                if (!busy) {
                    busy = true;
                    if (busyStreams++ == 0) {
                        ConnectionAdmission.this.busy();
                    }
                }
            }

            @Override
            public void idle() {
                if (busy) {
                    busy = false;
                    if (--busyStreams == 0) {
                        ConnectionAdmission.this.idle();
                    }
                }
            }

            @Override
            public void authenticated() {
                upgraded();
            }
        };
        // A stream reset while its request was being answered is no longer busy.
        stream.closeFuture().addListener(f -> view.idle());
        return view;
    }

    private void handshakeTimedOut() {
        if (handshaking && channel.isActive()) {
            metrics.handshakeTimedOut();
            channel.close();
        }
    }

    private void endHandshake() {
        if (handshaking) {
            handshaking = false;
            gate.handshakeEnded(peer, !fromTrustedProxy);
        }
    }

    private void release() {
        if (released) {
            return;
        }
        released = true;
        cancelDeadline();
        endHandshake();
        gate.closed(peer, !fromTrustedProxy);
        if (forwardedClient != null) {
            gate.forwardedClosed(forwardedClient);
        }
    }
}
