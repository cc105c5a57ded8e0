package io.sluice.proxy.runtime;

import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

import org.apache.kafka.common.Uuid;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelOutboundBuffer;
import io.sluice.flow.Closing;
import io.sluice.flow.WritabilityGate;
import io.sluice.proxy.cluster.ApiVersionsCache;
import io.sluice.proxy.codec.CorrelationTracker;
import io.sluice.proxy.codec.DecodePolicy;
import io.sluice.proxy.codec.FrameDecoder;
import io.sluice.proxy.codec.ProtocolException;
import io.sluice.proxy.config.PreAuthenticationConfig;
import io.sluice.proxy.filter.AuthenticatedPrincipal;
import io.sluice.logging.RateLimitedLog;
import io.sluice.proxy.metrics.VirtualClusterMetrics;

/**
 * One client connection and the broker connection made for it: the state the handlers of both pipelines
 * share. Everything here is touched only on the connection's event loop.
 */
public final class ProxyConnection {

    private static final Logger LOG = LoggerFactory.getLogger(ProxyConnection.class);
    // Any number of clients can hit the pre-authentication limits, or stop reading, at once.
    private static final RateLimitedLog PRE_AUTHENTICATION_CLOSES = new RateLimitedLog(LOG);
    private static final AtomicLong SESSIONS = new AtomicLong();
    /** The longest a filter may throttle a client in one call: a bound on a mistake, far above any quota's. */
    static final Duration MAX_CLIENT_THROTTLE = Duration.ofHours(1);

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
    private final Map<Uuid, String> topicNames = new HashMap<>();
    private boolean closing;
    private boolean dialing;
    /** Set on shutdown: no more requests are read, and the connection closes once the last one is answered. */
    private boolean draining;
    /** Requests read that expect a response not yet written. */
    private int unanswered;
    /** Filters holding requests behind one they are still working on: the client is not read meanwhile. */
    private int filtersWithQueuedRequests;
    /** Whether this connection pauses reading the client; autoRead starts off (the gateway's child option). */
    private boolean clientReadsPaused = true;
    /** Set while the bytes queued towards all clients are over budget and this connection's queue is among the long ones. */
    private volatile boolean throttled;
    /** Who pauses reading the client while a filter throttles it ({@link #throttleClient}): an owner of its own at the gate. */
    private final Object clientThrottle = new Object() {
        @Override
        public String toString() {
            return "client throttle";
        }
    };
    /** The end of the client throttle, when there is one; its delay is what is left of it, on the event loop's clock. */
    private ScheduledFuture<?> clientThrottleEnd;
    /** Non-null while the client has not authenticated on a chain that authenticates clients. */
    private PreAuthenticationConfig preAuthentication;
    private FrameDecoder frameDecoder;
    private ScheduledFuture<?> preAuthenticationDeadline;
    private ApiVersionsCache apiVersions = new ApiVersionsCache();
    private BrokerTroubleLog brokerTrouble;
    /** Bytes read from and written to the client (above TLS), for filters (FilterContext.bytesFromClient). */
    private long bytesFromClient;
    private long bytesToClient;

    public ProxyConnection(Channel frontend, String virtualCluster, String gateway, VirtualClusterMetrics metrics) {
        this.frontend = frontend;
        this.virtualCluster = virtualCluster;
        this.gateway = gateway;
        this.metrics = metrics;
        this.sessionId = virtualCluster + "-" + Long.toHexString(SESSIONS.incrementAndGet());
        this.brokerTrouble = new BrokerTroubleLog(virtualCluster);
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

    /** Counts bytes read from the client; called by the connection's {@link ByteCounter}, on its event loop. */
    void countFromClient(long bytes) {
        bytesFromClient += bytes;
    }

    void countToClient(long bytes) {
        bytesToClient += bytes;
    }

    long bytesFromClient() {
        return bytesFromClient;
    }

    long bytesToClient() {
        return bytesToClient;
    }

    /** The virtual cluster's cached ApiVersions answers: filled from this connection's, used for unauthenticated ones. */
    ApiVersionsCache apiVersions() {
        return apiVersions;
    }

    void apiVersions(ApiVersionsCache cache) {
        this.apiVersions = cache;
    }

    /** Topic names by id, learned by filters on this connection; ids never change meaning, so no expiry. */
    Map<Uuid, String> topicNames() {
        return topicNames;
    }

    Optional<AuthenticatedPrincipal> principal() {
        return Optional.ofNullable(principal);
    }

    void principal(AuthenticatedPrincipal principal) {
        this.principal = principal;
        if (preAuthentication != null) {
            preAuthentication = null;
            frameDecoder.liftPreAuthenticationLimit();
            preAuthenticationDeadline.cancel(false);
        }
    }

    /**
     * Holds the connection to the pre-authentication limits until a filter reports the client authenticated:
     * frames up to {@code limits.maxFrameBytes()}, at most {@code limits.maxQueuedRequests()} requests waiting,
     * closed when {@code limits.timeout()} passes first. Called once, as the pipeline is built.
     */
    void awaitAuthentication(PreAuthenticationConfig limits, FrameDecoder frames) {
        this.preAuthentication = limits;
        this.frameDecoder = frames;
        this.preAuthenticationDeadline = frontend.eventLoop().schedule(() -> {
            if (preAuthentication != null) {
                close("not authenticated in time", new ProtocolException(ProtocolException.Reason.PRE_AUTHENTICATION_TIMEOUT,
                        "not authenticated within network.preAuthentication.timeout " + limits.timeout().toMillis() + " ms"));
            }
        }, limits.timeout().toNanos(), TimeUnit.NANOSECONDS);
    }

    /** Whether the client has yet to authenticate to a filter that authenticates clients. */
    boolean awaitingAuthentication() {
        return preAuthentication != null;
    }

    /**
     * Called by a handler about to queue one more request behind one in progress, with the number it already
     * holds; before authentication, closes the connection when that would exceed the limit.
     *
     * @return false when the connection was closed and the request must be released instead
     */
    boolean mayQueueRequest(int alreadyQueued) {
        if (preAuthentication == null || alreadyQueued < preAuthentication.maxQueuedRequests()) {
            return true;
        }
        close("too many requests before authentication", new ProtocolException(ProtocolException.Reason.PRE_AUTHENTICATION_QUEUE_FULL,
                "more than network.preAuthentication.maxQueuedRequests " + preAuthentication.maxQueuedRequests()
                        + " requests waiting before authentication"));
        return false;
    }

    /** Where responses enter the client pipeline: at its tail, so that they pass every filter. */
    ChannelHandlerContext forwarderContext() {
        return forwarderContext;
    }

    void forwarderContext(ChannelHandlerContext ctx) {
        this.forwarderContext = ctx;
    }

    /** Called as the broker connection is being opened: client reads pause until it is up. */
    void dialing() {
        this.dialing = true;
        updateReads();
    }

    boolean isDialing() {
        return dialing;
    }

    /** Called once the broker connection is up: from now on requests flow and reads follow writability. */
    public void backendConnected(Channel channel) {
        this.backend = channel;
        this.dialing = false;
        updateReads();
    }

    /**
     * Back-pressure both ways: read from the client only while the broker connection can take more and no filter
     * holds requests queued, and from the broker only while the client connection can take more. Before the broker
     * connection is opened (it is opened lazily for unauthenticated clients) the client is read; while it is being
     * opened, not. That the client is not read while its own connection is full of answers it has not taken (answers
     * the proxy makes itself included) is the {@link WritabilityGate}'s job, at the head of the pipeline.
     */
    void updateReads() {
        boolean readClient = !closing && !draining && filtersWithQueuedRequests == 0
                && (backend == null ? !dialing : backend.isActive() && backend.isWritable());
        // Through the gate, which also stops reading while the client leaves its answers untaken: two owners of
        // autoRead would undo each other.
        if (readClient == clientReadsPaused) {
            clientReadsPaused = !readClient;
            if (readClient) {
                WritabilityGate.resumeReading(frontend, this);
            } else {
                WritabilityGate.pauseReading(frontend, this);
            }
        }
        if (backend != null) {
            boolean readBroker = frontend.isWritable() && !closing && !throttled;
            if (backend.config().isAutoRead() != readBroker) {
                backend.config().setAutoRead(readBroker);
            }
        }
    }

    /**
     * Called by a filter handler when requests start (true) or stop (false) waiting behind one its filter is still
     * working on. Reading on meanwhile would only move the client's requests from the socket into the heap, where
     * nothing bounds them: a client that pipelines behind a slow KMS call, say, waits in its own socket buffer.
     */
    void requestsQueuedInFilter(boolean queued) {
        filtersWithQueuedRequests += queued ? 1 : -1;
        updateReads();
    }

    /**
     * A filter throttles the client (KIP-219's mute): the client is not read until {@code duration} has passed, or a
     * later end if one is already set. The pause has an owner of its own at the {@link WritabilityGate}, beside this
     * connection's back-pressure ({@link #updateReads}) and the gate's writability, so neither can resume reading the
     * other stopped: the client is read only when none of them holds it.
     */
    void throttleClient(Duration duration) {
        if (duration.isNegative() || duration.isZero() || closing) {
            return;
        }
        long nanos = duration.compareTo(MAX_CLIENT_THROTTLE) > 0 ? MAX_CLIENT_THROTTLE.toNanos() : duration.toNanos();
        if (clientThrottleEnd != null) {
            if (clientThrottleEnd.getDelay(TimeUnit.NANOSECONDS) >= nanos) {
                return;
            }
            clientThrottleEnd.cancel(false);
        } else {
            WritabilityGate.pauseReading(frontend, clientThrottle);
        }
        clientThrottleEnd = frontend.eventLoop().schedule(this::endClientThrottle, nanos, TimeUnit.NANOSECONDS);
    }

    private void endClientThrottle() {
        clientThrottleEnd = null;
        if (!closing) {
            WritabilityGate.resumeReading(frontend, clientThrottle);
        }
    }

    /** Bytes written towards the client that it has not taken yet; any thread. */
    long queuedTowardsClient() {
        ChannelOutboundBuffer buffer = frontend.unsafe().outboundBuffer();
        return buffer == null ? 0 : buffer.totalPendingWriteBytes();
    }

    /** Stops (true) or resumes (false) reading responses from the broker for the process-wide budget; any thread. */
    void throttle(boolean on) {
        if (throttled != on) {
            throttled = on;
            frontend.eventLoop().execute(this::updateReads);
        }
    }

    /** Called by the response sequencer for each request read that expects a response. */
    void requestRead() {
        unanswered++;
    }

    /** Called by the response sequencer as each of those responses is written (or dropped). */
    void responseWritten() {
        unanswered--;
        if (draining && unanswered == 0) {
            // After the write in progress has gone down the pipeline, not from inside it.
            frontend.eventLoop().execute(() -> close("proxy shutting down, every request answered", null));
        }
    }

    /**
     * Shutdown: stop reading requests from the client, answer those already read (the broker connection keeps
     * being read), then close. Any thread.
     */
    public void drain() {
        frontend.eventLoop().execute(() -> {
            if (closing || draining) {
                return;
            }
            draining = true;
            updateReads();
            if (unanswered == 0) {
                close("proxy shutting down", null);
            }
        });
    }

    /** Where closes caused by the broker are logged: the virtual cluster's, shared by its connections. */
    void brokerTrouble(BrokerTroubleLog log) {
        this.brokerTrouble = log;
    }

    /**
     * Closes both sides because of the broker ({@code what}: it could not be reached, its connection failed), logging
     * through the virtual cluster's {@link BrokerTroubleLog}: an outage closes every connection, again at each reconnect.
     */
    void closeForBroker(String what, Throwable error) {
        if (closing) {
            return;
        }
        brokerTrouble.closing(this, what, error);
        close(what, null);
    }

    /** Closes both sides, logging why once. */
    public void close(String why, Throwable cause) {
        if (closing) {
            return;
        }
        closing = true;
        if (preAuthenticationDeadline != null) {
            preAuthenticationDeadline.cancel(false);
        }
        if (clientThrottleEnd != null) {
            clientThrottleEnd.cancel(false);
            clientThrottleEnd = null;
        }
        if (cause instanceof ProtocolException pe) {
            metrics.connectionRejected(pe.reason().metricName());
            if (pe.reason().anyClientCanCause()) {
                PRE_AUTHENTICATION_CLOSES.log("{}: closing connection: {}", descriptor(), pe.getMessage());
            } else {
                LOG.warn("{}: closing connection: {}", descriptor(), pe.getMessage());
            }
        } else if (cause != null) {
            LOG.warn("{}: closing connection: {}: {}", descriptor(), why, cause.toString(), LOG.isDebugEnabled() ? cause : null);
        } else {
            LOG.debug("{}: closing connection: {}", descriptor(), why);
        }
        tracker.abandon(new IllegalStateException("connection closed: " + why));
        // Flush what is already on its way (an error response, say) before the socket goes. Written below the
        // filters: a filter stalled on a response holds every write behind it, so from the tail the close would
        // wait for that filter, which may never complete.
        ChannelHandlerContext belowFilters = frontend.pipeline().context(ResponseSequencer.class);
        // A client that does not read never lets that flush complete: the grace bounds the wait.
        ChannelFuture flushed = belowFilters != null ? belowFilters.writeAndFlush(Unpooled.EMPTY_BUFFER) : frontend.writeAndFlush(Unpooled.EMPTY_BUFFER);
        Closing.closeOnceDone(frontend, flushed, Closing.DEFAULT_GRACE);
        if (backend != null) {
            backend.close();
        }
    }

    public boolean isClosing() {
        return closing;
    }
}
