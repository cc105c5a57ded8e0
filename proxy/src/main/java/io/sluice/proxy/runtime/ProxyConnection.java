package io.sluice.proxy.runtime;

import java.util.Optional;
import java.util.concurrent.atomic.AtomicLong;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.sluice.proxy.codec.CorrelationTracker;
import io.sluice.proxy.codec.DecodePolicy;
import io.sluice.proxy.codec.ProtocolException;
import io.sluice.proxy.filter.AuthenticatedPrincipal;
import io.sluice.proxy.metrics.VirtualClusterMetrics;

/**
 * One client connection and the broker connection made for it: the state the handlers of both pipelines
 * share. Everything here is touched only on the connection's event loop.
 */
public final class ProxyConnection {

    private static final Logger LOG = LoggerFactory.getLogger(ProxyConnection.class);
    private static final AtomicLong SESSIONS = new AtomicLong();

    private final Channel frontend;
    private final String virtualCluster;
    private final String gateway;
    private final String sessionId;
    private final VirtualClusterMetrics metrics;
    private final CorrelationTracker tracker = new CorrelationTracker();
    private DecodePolicy decodePolicy;
    private Channel backend;
    private ChannelHandlerContext forwarderContext;
    private AuthenticatedPrincipal principal;
    private final java.util.Map<org.apache.kafka.common.Uuid, String> topicNames = new java.util.HashMap<>();
    private boolean closing;

    public ProxyConnection(Channel frontend, String virtualCluster, String gateway, VirtualClusterMetrics metrics) {
        this.frontend = frontend;
        this.virtualCluster = virtualCluster;
        this.gateway = gateway;
        this.metrics = metrics;
        this.sessionId = virtualCluster + "-" + Long.toHexString(SESSIONS.incrementAndGet());
    }

    public Channel frontend() {
        return frontend;
    }

    /** Null until the upstream connection is established. */
    public Channel backend() {
        return backend;
    }

    public String virtualCluster() {
        return virtualCluster;
    }

    public String sessionId() {
        return sessionId;
    }

    public VirtualClusterMetrics metrics() {
        return metrics;
    }

    public CorrelationTracker tracker() {
        return tracker;
    }

    public DecodePolicy decodePolicy() {
        return decodePolicy;
    }

    void decodePolicy(DecodePolicy policy) {
        this.decodePolicy = policy;
    }

    public String descriptor() {
        return frontend.remoteAddress() + " -> " + virtualCluster + "/" + gateway + " [" + sessionId + "]";
    }

    /** Topic names by id, learned by filters on this connection; ids never change meaning, so no expiry. */
    java.util.Map<org.apache.kafka.common.Uuid, String> topicNames() {
        return topicNames;
    }

    Optional<AuthenticatedPrincipal> principal() {
        return Optional.ofNullable(principal);
    }

    void principal(AuthenticatedPrincipal principal) {
        this.principal = principal;
    }

    /** Where responses enter the client pipeline: at its tail, so that they pass every filter. */
    ChannelHandlerContext forwarderContext() {
        return forwarderContext;
    }

    void forwarderContext(ChannelHandlerContext ctx) {
        this.forwarderContext = ctx;
    }

    /** Called once the broker connection is up: from now on requests flow and reads follow writability. */
    public void backendConnected(Channel channel) {
        this.backend = channel;
        updateReads();
    }

    /**
     * Back-pressure both ways: read from the client only while the broker connection can take more, and
     * from the broker only while the client connection can.
     */
    void updateReads() {
        boolean readClient = backend != null && backend.isActive() && backend.isWritable() && !closing;
        if (frontend.config().isAutoRead() != readClient) {
            frontend.config().setAutoRead(readClient);
        }
        if (backend != null) {
            boolean readBroker = frontend.isWritable() && !closing;
            if (backend.config().isAutoRead() != readBroker) {
                backend.config().setAutoRead(readBroker);
            }
        }
    }

    /** Closes both sides, logging why once. */
    public void close(String why, Throwable cause) {
        if (closing) {
            return;
        }
        closing = true;
        if (cause instanceof ProtocolException pe) {
            metrics.connectionRejected(pe.reason().metricName());
            LOG.warn("{}: closing connection: {}", descriptor(), pe.getMessage());
        } else if (cause != null) {
            LOG.warn("{}: closing connection: {}: {}", descriptor(), why, cause.toString(), LOG.isDebugEnabled() ? cause : null);
        } else {
            LOG.debug("{}: closing connection: {}", descriptor(), why);
        }
        tracker.abandon(new IllegalStateException("connection closed: " + why));
        // Flush what is already on its way (an error response, say) before the socket goes.
        frontend.writeAndFlush(io.netty.buffer.Unpooled.EMPTY_BUFFER).addListener(f -> frontend.close());
        if (backend != null) {
            backend.close();
        }
    }

    public boolean isClosing() {
        return closing;
    }
}
