package io.sluice.bridge.session;

import io.sluice.format.mask.ValueMask;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;

import io.netty.buffer.ByteBuf;
import io.netty.channel.Channel;
import io.netty.util.AttributeKey;
import io.sluice.bridge.auth.Principal;
import io.sluice.bridge.selection.SubscriptionFilter;
import io.sluice.bridge.metrics.TransportMetrics;
import io.sluice.bridge.protocol.ClientRequest;
import io.sluice.bridge.protocol.ClientRequests;
import io.sluice.bridge.protocol.CloseCodes;
import io.sluice.bridge.protocol.EncodedMessage;
import io.sluice.bridge.protocol.ErrorCodes;
import io.sluice.bridge.protocol.RequestRefusedException;
import io.sluice.bridge.protocol.ServerMessages;
import io.sluice.bridge.recovery.RecoveryPlan;
import io.sluice.bridge.subscription.Subscription;
import io.sluice.bridge.subscription.TooManyGroupsException;
import io.sluice.flow.Closing;

/**
 * One client connection after the WebSocket handshake (or an SSE stream's start): who it is, what it subscribed to,
 * and what it is owed. In: the client's requests and the socket's writability; out: replies and the close through its
 * {@link Wire}, and subscriptions in the hub. Every method runs on the connection's event loop. The session keeps the
 * connection's lifecycle and its subscriptions; {@link Authentication} the token, {@link Requests} the checks of each
 * request, {@link HeldFrames} the requests waiting for the node's reader, {@link CatchUp} each new subscription's
 * recovery, and {@link Outbound} the way out (the subscriptions' outlet): the queue, conflation, the slow-client clock
 * and {@code outbound.maxBytes}.
 */
public final class Session {

    private static final AttributeKey<Boolean> CLOSING = AttributeKey.valueOf(Session.class, "closing");
    private static final int MAX_CLOSE_REASON_BYTES = 123;

    private static final AttributeKey<Session> SESSION = AttributeKey.valueOf(Session.class, "session");

    private final Channel channel;
    private final Wire wire;
    private final TransportMetrics transport;
    private final SessionServices services;
    private final Requests requests;
    private final Map<String, Subscription<SubscriptionState>> subscriptions = new HashMap<>();
    private final Outbound outbound;
    private final CatchUp catchUp;
    private final HeldFrames held;
    private boolean closing;
    private final Authentication authentication;

    /**
     * A session writing through the given transport ({@code websocket.WebSocketWire}, {@code sse.SseWire}).
     *
     * @param inbound the connection's message size limit, which the connect lifts
     */
    public Session(Channel channel, Wire wire, SessionServices services, Inbound inbound) {
        this.channel = channel;
        this.wire = wire;
        this.transport = services.metrics().transport(wire.transport());
        this.services = services;
        this.requests = new Requests(this, services);
        this.authentication = new Authentication(this, services, channel.eventLoop(), inbound);
        this.outbound = new Outbound(channel, wire, transport, services.metrics(), services.outbound(), subscriptions.values(),
                () -> closing, reason -> close(CloseCodes.SLOW_CLIENT, reason, services.outbound().slowCloseGrace()));
        this.catchUp = new CatchUp(this, services, outbound);
        this.held = new HeldFrames(channel, services.readerStartup(), frame -> {
            if (!closing) {
                handle(frame);
            }
        });
    }

    /**
     * Validates a token exactly as a WebSocket {@code connect} does (counting refusals alike); completes on another
     * thread, never exceptionally.
     */
    public static CompletableFuture<TokenVerdict> validate(SessionServices services, String token, Channel channel) {
        return Authentication.validate(services, token, channel.remoteAddress());
    }

    /** The transport it writes through: {@code websocket} or {@code sse}. */
    public String transport() {
        return wire.transport();
    }

    /** The connection's session, once one has been opened on it; null otherwise. */
    public static Session of(Channel channel) {
        return channel.attr(SESSION).get();
    }

    Channel channel() {
        return channel;
    }

    Principal principal() {
        return authentication.principal();
    }

    boolean isClosing() {
        return closing;
    }

    /** The handshake is done: the client has {@code auth.connectTimeout} to authenticate. */
    public void opened() {
        channel.attr(SESSION).set(this);
        transport.connectionOpened();
        authentication.awaitConnect();
    }

    /**
     * Whether a stream's principal may subscribe as asked: every check a WebSocket {@code subscribe} gets but the
     * subscribe rate (the stream's subscriptions are bounded by its endpoint count). Before {@link #openedWith}, so that
     * a refusal can still be an HTTP status.
     */
    public void check(Principal principal, ClientRequest.Subscribe request) throws RequestRefusedException {
        authentication.principalForChecks(principal);
        requests.check(request);
    }

    /**
     * Takes the stream's place among its subject's sessions ({@code connections.maxConnectionsPerSubject}) before it
     * starts; when false, the stream is refused with {@code message}.
     */
    public String admit(Principal principal) {
        return authentication.admit(principal) ? null : authentication.tooManyForSubject();
    }

    /**
     * Opens a session whose token was validated before (an SSE stream): {@code connected} is sent at once and the
     * token's expiry timers run as after a WebSocket connect.
     */
    public void openedWith(Principal principal) {
        channel.attr(SESSION).set(this);
        transport.connectionOpened();
        authentication.accept(principal);
        control(ServerMessages.connected(null, services.nodeName(), principal.subject(),
                principal.expiresAt() == null ? null : principal.expiresAt().toEpochMilli()));
    }

    /** A subscription the stream asked for, checked by {@link #check}. */
    public void subscribeChecked(ClientRequest.Subscribe request) throws RequestRefusedException {
        subscribe(request);
    }

    /**
     * A subscribe from a transport that frames its own requests (MQTT's SUBSCRIBE): every check and limit a WebSocket
     * {@code subscribe} gets, its rate included, after {@link #openedWith}.
     *
     * @throws RequestRefusedException refused, nothing subscribed: the code says why, as in a WebSocket {@code error}
     */
    public void subscribeRequest(ClientRequest.Subscribe request) throws RequestRefusedException {
        requests.subscribe(request);
    }

    /** Ends the subscription to {@code pattern}; false when there was none. For transports that frame their own requests. */
    public boolean unsubscribe(String pattern) {
        Subscription<SubscriptionState> s = subscriptions.get(pattern);
        if (s == null) {
            return false;
        }
        unsubscribe(s);
        return true;
    }

    /** One text frame from the client. */
    public void received(ByteBuf text) {
        if (closing) {
            return;
        }
        if (!held.hold(text)) {
            handle(text);
        }
    }

    private void handle(ByteBuf text) {
        try {
            ClientRequest request = ClientRequests.parse(text, services.requests(), services.filters());
            // Before connect a subscribe is refused at once: holding it would hold the connect behind it past its timeout.
            if (request instanceof ClientRequest.Subscribe && principal() != null && services.readerStartup().waiting()) {
                held.holdFrom(text);
                return;
            }
            requests.handle(request);
        }
        catch (RequestRefusedException e) {
            error(e.id(), e.code(), e.getMessage(), e.retryAfterMillis());
        }
    }

    /** Binary frames carry nothing in this protocol; say so and keep serving. */
    public void receivedBinary() {
        error(null, ErrorCodes.MALFORMED, "binary frames are not part of the protocol; send JSON text frames");
    }

    // ---- authentication

    void connect(ClientRequest.Connect connect) throws RequestRefusedException {
        authentication.connect(connect);
    }

    void refresh(ClientRequest.Refresh refresh, Runnable done) {
        authentication.refresh(refresh, done);
    }

    /**
     * A refreshed token may grant less: end the subscriptions it no longer allows, and those whose row filter it
     * changed (the client subscribes again and gets the new selection from where it was).
     */
    void permissionsChanged() {
        for (Subscription<SubscriptionState> s : new ArrayList<>(subscriptions.values())) {
            if (!requests.permitted(s.pattern()) || !Objects.equals(s.state().mandatory,
                    RowFilters.canonicalNow(principal(), services.hub().table(), s.pattern(), services.filters()))) {
                unsubscribe(s);
                control(ServerMessages.unsubscribed(null, s.pattern(), ErrorCodes.FORBIDDEN));
            }
        }
    }

    // ---- subscriptions

    int subscriptionCount() {
        return subscriptions.size();
    }

    boolean subscribed(String pattern) {
        return subscriptions.containsKey(pattern);
    }

    void subscribe(ClientRequest.Subscribe request) throws RequestRefusedException {
        SubscriptionFilter mandatory = RowFilters.forPattern(principal(), services.hub().table(), request.endpoint(), services.filters(), request.id());
        SubscriptionFilter filter = mandatory == null ? request.filter() : request.filter() == null ? mandatory : mandatory.and(request.filter());
        SubscriptionState state = new SubscriptionState(request.delta());
        state.mandatory = mandatory == null ? null : mandatory.canonical();
        ValueMask mask = FieldMasks.forPattern(principal(), services.hub().table(), request.endpoint(), services.masks(), request.id());
        Subscription<SubscriptionState> subscription = new Subscription<>(outbound, request.endpoint(), request.delta(), filter,
                request.fields(), mask, state);
        RecoveryPlan plan;
        try {
            plan = services.hub().subscribe(subscription, request.recover(), request.snapshot());
        }
        catch (TooManyGroupsException e) {
            throw new RequestRefusedException(ErrorCodes.TOO_MANY_GROUPS, e.getMessage(), request.id());
        }
        subscriptions.put(request.endpoint(), subscription);
        CompletableFuture<List<EncodedMessage>> fromKafka = null;
        if (plan.needsKafka()) {
            // Only now is it known whether the log must be read; if it cannot be now, the subscription is undone
            // before anything was sent for it (live messages already dispatched to it are released, being inactive).
            fromKafka = catchUp.readLog(request, plan);
            if (fromKafka == null) {
                unsubscribe(subscription);
                plan.cached().forEach(EncodedMessage::release);
                throw new RequestRefusedException(ErrorCodes.BUSY, "recovery needs " + plan.reads().size() + " Kafka log read(s) and"
                        + " this connection or node has as many running as it takes; subscribe again after a backoff", request.id());
            }
        }
        wire.subscribed(request.endpoint(), request.recover(), plan.positions());
        control(ServerMessages.subscribed(request.id(), request.endpoint(), plan.positions()));
        catchUp.start(subscription, request, plan, fromKafka);
        outbound.drainBacklogs();
        outbound.flush();
    }

    void unsubscribe(Subscription<SubscriptionState> subscription) {
        subscriptions.remove(subscription.pattern());
        services.hub().unsubscribe(subscription);
        outbound.forget(subscription.state());
    }

    Subscription<SubscriptionState> subscription(String pattern) {
        return subscriptions.get(pattern);
    }

    // ---- delivery (the hub delivers to the Outbound, the subscriptions' outlet)

    /** The channel's writability changed: {@link #writable} or {@link #unwritable}, as it now is. For every transport. */
    public void writabilityChanged() {
        if (channel.isWritable()) {
            writable();
        }
        else {
            unwritable();
        }
    }

    /** The socket went above the high-water mark: the slow-client clock starts ({@link Outbound#unwritable}). */
    public void unwritable() {
        outbound.unwritable();
    }

    /** The socket drained below the low-water mark: send what waited, oldest first, while it keeps up. */
    public void writable() {
        outbound.writable();
    }

    // ---- replies and closing

    /** A reply or notice of the session's own, before connect too ({@link Outbound#control}). */
    void control(byte[] json) {
        outbound.control(json);
    }

    void error(Long id, String code, String message) {
        error(id, code, message, -1);
    }

    private void error(Long id, String code, String message, long retryAfterMillis) {
        services.metrics().clientError();
        control(ServerMessages.error(id, code, message, retryAfterMillis));
    }

    /**
     * Sends a close frame with the code and closes once it is written, or after {@link Closing#DEFAULT_GRACE} if the
     * client does not take it; everything the session holds is released at once.
     */
    public void close(int code, String reason) {
        close(code, reason, Closing.DEFAULT_GRACE);
    }

    /**
     * Whether this session's own slow clock is running (or it is closing already): it then closes the connection with
     * 4008 at {@code outbound.maxSlowTime}, so the WritabilityGate, whose clock started at the same moment, leaves it
     * to the session rather than cutting the socket without a close frame.
     */
    public boolean closesSlowClient() {
        return closing || outbound.slowClockRunning();
    }

    /** Whether the connection's session has started closing it (so its close is already counted). */
    public static boolean closingFor(Channel channel) {
        return Boolean.TRUE.equals(channel.attr(CLOSING).get());
    }

    private void close(int code, String reason, Duration grace) {
        if (closing) {
            return;
        }
        String text = reason;
        // RFC 6455 leaves 123 bytes for the reason in a close frame.
        while (text.getBytes(StandardCharsets.UTF_8).length > MAX_CLOSE_REASON_BYTES) {
            text = text.substring(0, text.length() - 1);
        }
        release();
        closing = true;
        channel.attr(CLOSING).set(true);
        Closing.closeOnceDone(channel, wire.close(code, text), grace);
    }

    /** The connection is gone. */
    public void closed() {
        if (!closing) {
            release();
            closing = true;
        }
        transport.connectionClosed();
    }

    private void release() {
        held.release();
        authentication.end();
        for (Subscription<SubscriptionState> s : new ArrayList<>(subscriptions.values())) {
            unsubscribe(s);
        }
        outbound.release();
    }
}
