package io.sluice.bridge.session;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import io.netty.buffer.ByteBuf;
import io.netty.channel.Channel;
import io.netty.channel.ChannelOutboundBuffer;
import io.netty.util.AttributeKey;
import io.netty.util.concurrent.EventExecutor;
import io.netty.util.concurrent.ScheduledFuture;
import io.sluice.bridge.auth.Principal;
import io.sluice.bridge.metrics.TransportMetrics;
import io.sluice.logging.RateLimitedByCause;
import io.sluice.bridge.protocol.ClientRequest;
import io.sluice.bridge.protocol.ClientRequests;
import io.sluice.bridge.protocol.CloseCodes;
import io.sluice.bridge.protocol.EncodedMessage;
import io.sluice.bridge.protocol.ErrorCodes;
import io.sluice.bridge.protocol.MessageEncoder;
import io.sluice.bridge.protocol.RequestRefusedException;
import io.sluice.bridge.protocol.ServerMessages;
import io.sluice.bridge.recovery.RecoveryPlan;
import io.sluice.bridge.filter.Filter;
import io.sluice.bridge.filter.FilterException;
import io.sluice.bridge.subscription.EndpointTable;
import io.sluice.bridge.subscription.Group;
import io.sluice.bridge.subscription.TooManyGroupsException;
import io.sluice.bridge.subscription.EndpointTable;
import io.sluice.bridge.subscription.Outlet;
import io.sluice.bridge.subscription.Subscription;
import io.sluice.flow.Closing;
import io.sluice.flow.WritabilityGate;

/**
 * One client connection after the WebSocket handshake: who it is, what it subscribed to, and what it is owed. Every
 * method runs on the connection's event loop. Outbound, a message goes to the socket while the connection keeps up;
 * past the high-water mark it is conflated (the latest per endpoint kept); past {@code outbound.maxBytes}, or above
 * the high-water mark for longer than {@code outbound.maxSlowTime}, the connection is closed with 4008.
 * Everything it holds for the client counts against {@code outbound.maxBytes}: the socket's queue (messages, replies,
 * pongs), conflated messages, live messages waiting behind a recovery, and the recovery backlog itself.
 */
public final class Session extends Outlet {

    private static final Logger LOG = LoggerFactory.getLogger(Session.class);
    // Node-wide: during a Kafka outage every reconnecting client's recovery fails the same way.
    private static final RateLimitedByCause RECOVERY_FAILURES = new RateLimitedByCause(LOG);
    private static final AttributeKey<Boolean> CLOSING = AttributeKey.valueOf(Session.class, "closing");
    private static final int MAX_CLOSE_REASON_BYTES = 123;

    private static final AttributeKey<Session> SESSION = AttributeKey.valueOf(Session.class, "session");

    private final Channel channel;
    private final Wire wire;
    private final TransportMetrics transport;
    private final SessionServices services;
    private final Requests requests;
    private final Map<String, Subscription> subscriptions = new HashMap<>();
    private final Conflation conflation = new Conflation();
    // Bytes waiting in the session for the client: live messages behind a recovery and the recovery backlogs.
    private long heldBytes;
    // Kafka log reads this connection started that have not finished; event loop only.
    private int pendingLogReads;
    private boolean dirty;
    private boolean closing;
    private ScheduledFuture<?> slowDeadline;
    // Frames held while a subscribe waits for the reader to start; null otherwise. Reads are paused meanwhile, so it
    // holds at most what the socket had already delivered: the rest of one read, each frame within the message limit.
    private ArrayDeque<ByteBuf> waitingForReader;
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

    @Override
    public EventExecutor executor() {
        return channel.eventLoop();
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

    /** One text frame from the client. */
    public void received(ByteBuf text) {
        if (closing) {
            return;
        }
        if (waitingForReader != null) {
            waitingForReader.add(text.retain());
            return;
        }
        handle(text);
    }

    private void handle(ByteBuf text) {
        try {
            ClientRequest request = ClientRequests.parse(text, services.requests(), services.filters());
            // Before connect a subscribe is refused at once: holding it would hold the connect behind it past its timeout.
            if (request instanceof ClientRequest.Subscribe && principal() != null && services.readerStartup().waiting()) {
                waitForReader(text);
                return;
            }
            requests.handle(request);
        }
        catch (RequestRefusedException e) {
            error(e.id(), e.code(), e.getMessage(), e.retryAfterMillis());
        }
    }

    /**
     * Holds the subscribe, and every frame after it so that requests keep their order, until the reader has started
     * or the node's startup wait is over; socket reads pause meanwhile.
     */
    private void waitForReader(ByteBuf subscribe) {
        waitingForReader = new ArrayDeque<>();
        waitingForReader.add(subscribe.retain());
        WritabilityGate.pauseReading(channel, waitingForReader);
        services.readerStartup().waitOver().whenComplete((ignored, error) -> channel.eventLoop().execute(this::readerWaitOver));
    }

    private void readerWaitOver() {
        ArrayDeque<ByteBuf> held = waitingForReader;
        if (held == null) {
            return;
        }
        waitingForReader = null;
        WritabilityGate.resumeReading(channel, held);
        for (ByteBuf frame = held.poll(); frame != null; frame = held.poll()) {
            try {
                if (!closing) {
                    handle(frame);
                }
            }
            finally {
                frame.release();
            }
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
     * The token's row filters for the topics a pattern covers, ANDed; null when none applies. Refused (forbidden) when the
     * covered topics are filtered differently.
     */
    private Filter mandatoryFilter(String pattern, Long id) throws RequestRefusedException {
        List<String> topics = services.hub().table().cover(pattern).stream().map(EndpointTable.Cover::topic).distinct().toList();
        try {
            return RowFilters.mandatory(principal(), topics, services.filters());
        }
        catch (IllegalStateException e) {
            throw new RequestRefusedException(ErrorCodes.FORBIDDEN, e.getMessage(), id);
        }
        catch (FilterException e) {
            // Checked when the token was accepted; only a change of the node's limits could get here.
            throw new RequestRefusedException(ErrorCodes.FORBIDDEN, "the token's row filter is not usable here: " + e.getMessage(), id);
        }
    }

    /** The canonical row filter a subscription would get now; differs from the state's after a refresh changed it. */
    private String mandatoryNow(String pattern) {
        try {
            Filter now = mandatoryFilter(pattern, null);
            return now == null ? null : now.canonical();
        }
        catch (RequestRefusedException e) {
            return "refused";
        }
    }

    /**
     * A refreshed token may grant less: end the subscriptions it no longer allows, and those whose row filter it
     * changed (the client subscribes again and gets the new selection from where it was).
     */
    void permissionsChanged() {
        for (Subscription s : new ArrayList<>(subscriptions.values())) {
            SubscriptionState state = (SubscriptionState) s.attachment();
            if (!requests.permitted(s.pattern()) || !java.util.Objects.equals(state.mandatory, mandatoryNow(s.pattern()))) {
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
        Filter mandatory = mandatoryFilter(request.endpoint(), request.id());
        Filter filter = mandatory == null ? request.filter() : request.filter() == null ? mandatory : mandatory.and(request.filter());
        Subscription subscription = new Subscription(this, request.endpoint(), request.delta(), filter, request.fields());
        SubscriptionState state = new SubscriptionState(request.delta());
        state.mandatory = mandatory == null ? null : mandatory.canonical();
        subscription.attach(state);
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
            fromKafka = readLog(request, plan);
            if (fromKafka == null) {
                unsubscribe(subscription);
                plan.cached().forEach(EncodedMessage::release);
                throw new RequestRefusedException(ErrorCodes.BUSY, "recovery needs " + plan.reads().size() + " Kafka log read(s) and"
                        + " this connection or node has as many running as it takes; subscribe again after a backoff", request.id());
            }
        }
        wire.subscribed(request.endpoint(), request.recover(), plan.positions());
        control(ServerMessages.subscribed(request.id(), request.endpoint(), plan.positions()));
        for (RecoveryPlan.Gap gap : plan.gaps()) {
            services.metrics().recoveryGap();
            toBacklog(state, MessageEncoder.gap(channel.alloc(), request.endpoint(),
                    gap.epoch(), gap.fromSeq(), gap.toSeq(), gap.reason()));
        }
        recoverInto(state, request.endpoint(), selected(subscription, plan.cached()));
        if (!plan.ahead().isEmpty()) {
            state.skipUpTo = new HashMap<>();
            plan.ahead().forEach(p -> state.skipUpTo.put(p.epoch(), p.seq()));
        }
        if (fromKafka != null) {
            state.recovering = true;
            fromKafka.whenComplete((recovered, error) -> channel.eventLoop().execute(
                    () -> recovered(subscription, request, plan, recovered, error)));
        }
        drainBacklogs();
        flush();
    }

    /**
     * Starts the plan's log reads if this connection and the node have room for them, else returns null. The
     * connection's count drops when the reads finish, not when the subscription ends: unsubscribing does not stop a
     * read, so it must not make room for another.
     */
    private CompletableFuture<List<EncodedMessage>> readLog(ClientRequest.Subscribe request, RecoveryPlan plan) {
        int reads = plan.reads().size();
        // A connection with no read pending may always start one recovery, however many partitions it covers.
        if (pendingLogReads > 0 && pendingLogReads + reads > services.recovery().kafkaReadsPerConnection()) {
            Refusals.refused(services, "recovery_connection_busy", channel.remoteAddress());
            return null;
        }
        EndpointTable table = services.hub().table();
        CompletableFuture<List<EncodedMessage>> fromKafka = services.kafkaRecovery().recover(request.endpoint(), plan.reads(),
                (topic, key) -> table.endpointsFor(topic, key).stream().filter(e -> EndpointTable.matches(request.endpoint(), e)).toList());
        if (fromKafka == null) {
            Refusals.refused(services, "recovery_node_busy", channel.remoteAddress());
            return null;
        }
        pendingLogReads += reads;
        fromKafka.whenComplete((recovered, error) -> channel.eventLoop().execute(() -> pendingLogReads -= reads));
        return fromKafka;
    }

    private void recovered(Subscription subscription, ClientRequest.Subscribe request, RecoveryPlan plan,
                           List<EncodedMessage> recovered, Throwable error) {
        SubscriptionState state = (SubscriptionState) subscription.attachment();
        if (!state.active) {
            if (recovered != null) {
                recovered.forEach(EncodedMessage::release);
            }
            return;
        }
        if (error != null) {
            RECOVERY_FAILURES.logWithCause(error, "{}: recovery of {} from Kafka failed", channel.remoteAddress(), request.endpoint());
            error(request.id(), ErrorCodes.RECOVERY_FAILED, "recovery from the Kafka log failed; the missed messages are reported as gaps");
            for (RecoveryPlan.LogRead read : plan.reads()) {
                services.metrics().recoveryGap();
                toBacklog(state, MessageEncoder.gap(channel.alloc(), request.endpoint(),
                        read.epoch(), read.from(), read.to(), ErrorCodes.RECOVERY_FAILED));
            }
        }
        else {
            recoverInto(state, request.endpoint(), selected(subscription, recovered));
        }
        state.recovering = false;
        drainBacklogs();
        flush();
    }

    /**
     * Recovered messages as the subscription's group selects them (filtered, projected), in order; the same messages
     * when the subscription selects everything. Takes over the references.
     */
    private List<EncodedMessage> selected(Subscription subscription, List<EncodedMessage> messages) {
        Group group = subscription.group();
        if (group == null) {
            return messages;
        }
        List<EncodedMessage> kept = new ArrayList<>(messages.size());
        for (EncodedMessage m : messages) {
            EncodedMessage out = group.recovered(m, channel.alloc());
            if (out != null) {
                kept.add(out);
            }
        }
        return kept;
    }

    /** Puts a message in a subscription's backlog, where it counts against {@code outbound.maxBytes}. */
    private void toBacklog(SubscriptionState state, EncodedMessage message) {
        state.backlog.add(message);
        state.heldBytes += message.bytes();
        heldBytes += message.bytes();
    }

    /**
     * Puts a recovery's messages (from the cache or the Kafka log, in order per partition) in the backlog: as many of
     * the newest as fit in half of {@code outbound.maxBytes} beside what the connection already holds; the older ones
     * are reported as one {@code too_far_behind} gap per partition, as for {@code recovery.kafkaMaxRecords}. Half,
     * so that live messages arriving while the backlog goes out have room before the limit closes the connection;
     * cutting rather than closing, because a client closed for its recovery would reconnect and ask for the same.
     */
    private void recoverInto(SubscriptionState state, String endpoint, List<EncodedMessage> messages) {
        long budget = Math.max(0, services.outbound().maxBytes() / 2 - outstanding());
        int cut = messages.size();
        long kept = 0;
        while (cut > 0 && kept + messages.get(cut - 1).bytes() <= budget) {
            kept += messages.get(cut - 1).bytes();
            cut--;
        }
        Map<String, long[]> dropped = new LinkedHashMap<>();
        for (EncodedMessage m : messages.subList(0, cut)) {
            if (m.notice()) {
                // Gap notices are small and say something the client needs; they stay, in order.
                toBacklog(state, m);
                continue;
            }
            long[] range = dropped.computeIfAbsent(m.epoch(), e -> new long[] {m.seq(), m.seq()});
            range[0] = Math.min(range[0], m.seq());
            range[1] = Math.max(range[1], m.seq());
            m.release();
        }
        dropped.forEach((epoch, range) -> {
            services.metrics().recoveryGap();
            toBacklog(state, MessageEncoder.gap(channel.alloc(), endpoint,
                    epoch, range[0], range[1], RecoveryPlan.GAP_TOO_FAR_BEHIND));
        });
        if (!dropped.isEmpty()) {
            LOG.debug("{}: recovery of {} cut to {} bytes of outbound.maxBytes", channel.remoteAddress(), endpoint, budget);
        }
        for (EncodedMessage m : messages.subList(cut, messages.size())) {
            toBacklog(state, m);
        }
    }

    void unsubscribe(Subscription subscription) {
        subscriptions.remove(subscription.pattern());
        services.hub().unsubscribe(subscription);
        SubscriptionState state = (SubscriptionState) subscription.attachment();
        heldBytes -= state.heldBytes;
        state.releaseAll();
    }

    Subscription subscription(String pattern) {
        return subscriptions.get(pattern);
    }

    // ---- delivery

    @Override
    public void deliver(Subscription subscription, EncodedMessage message) {
        SubscriptionState state = (SubscriptionState) subscription.attachment();
        if (!state.active || closing || state.alreadyHas(message)) {
            message.release();
            return;
        }
        if (state.catchingUp()) {
            // Behind recovered messages: wait in line, counted against the limit like conflated bytes.
            state.held.add(message);
            state.heldBytes += message.bytes();
            heldBytes += message.bytes();
            enforceLimit();
            return;
        }
        if (!conflation.isEmpty() || !channel.isWritable()) {
            if (conflation.keep(message)) {
                services.metrics().conflated();
            }
            enforceLimit();
            return;
        }
        write(subscription, state, message);
    }

    /** Writes a message (releasing the caller's reference), as a delta when the client holds its base. */
    private void write(Subscription subscription, SubscriptionState state, EncodedMessage message) {
        ByteBuf frame = message.frame();
        boolean delta = false;
        if (state.deltaBase != null && !message.notice()) {
            Long base = state.deltaBase.get(message.endpoint());
            if (message.deltaFrame() != null && base != null && base == message.deltaBase()) {
                frame = message.deltaFrame();
                delta = true;
            }
            state.deltaBase.put(message.endpoint(), message.seq());
        }
        writeFrame(message, frame, delta, subscription.pattern());
        message.release();
    }

    private void writeFrame(EncodedMessage message, ByteBuf frame, boolean delta, String pattern) {
        int bytes = frame.readableBytes();
        wire.message(message, frame, delta, pattern);
        transport.messageOut(bytes);
        dirty = true;
    }

    @Override
    public void flush() {
        if (dirty) {
            dirty = false;
            wire.flush();
        }
    }

    /**
     * The socket went above the high-water mark. Conflation bounds what the connection costs in memory, not how long
     * it holds its subscriptions and socket: unless it drains below the low-water mark within
     * {@code outbound.maxSlowTime}, it is closed with 4008.
     */
    public void unwritable() {
        if (slowDeadline == null && !closing) {
            slowDeadline = channel.eventLoop().schedule(this::slowTooLong, services.outbound().maxSlowTime().toMillis(), TimeUnit.MILLISECONDS);
        }
    }

    /**
     * Whether the client has everything it is owed that is ready to go: the socket below the low-water mark and
     * nothing conflated or waiting in a backlog (a subscription still waiting for its Kafka read waits for the node,
     * not the client). The slow clock stops only then: a client that reads a little now and then, dipping below the
     * low-water mark while a backlog or conflated messages still wait, stays slow.
     */
    private boolean caughtUp() {
        if (!channel.isWritable() || !conflation.isEmpty()) {
            return false;
        }
        for (Subscription s : subscriptions.values()) {
            SubscriptionState state = (SubscriptionState) s.attachment();
            if (!state.recovering && (!state.backlog.isEmpty() || !state.held.isEmpty())) {
                return false;
            }
        }
        return true;
    }

    private void slowTooLong() {
        slowDeadline = null;
        // Not active: the WritabilityGate closed it for the same reason a moment ago (its close is still under way).
        if (closing || !channel.isActive() || caughtUp()) {
            return;
        }
        services.metrics().slowClientTimedOut();
        LOG.info("{}: closing slow client: behind (above outbound.highWaterMarkBytes, or with messages waiting) for outbound.maxSlowTime {}",
                channel.remoteAddress(), services.outbound().maxSlowTime());
        closeSlow("slow client: not reading for too long");
    }

    /** The socket drained below the low-water mark: send what waited, oldest first, while it keeps up. */
    public void writable() {
        drainBacklogs();
        Iterator<Map.Entry<String, Conflation.Kept>> kept = conflation.drain();
        while (channel.isWritable() && kept.hasNext()) {
            Conflation.Kept k = kept.next().getValue();
            if (k.dropped > 0) {
                control(ServerMessages.conflated(k.message.endpoint(), k.dropped));
            }
            writeFrame(k.message, k.message.frame(), false, null);
            forgetDeltaBase(k.message);
            k.message.release();
        }
        flush();
        if (caughtUp()) {
            cancelSlowDeadline();
        }
    }

    private void forgetDeltaBase(EncodedMessage message) {
        // A conflated message goes out whole; delta subscriptions of its endpoint continue from it.
        for (Subscription s : subscriptions.values()) {
            SubscriptionState state = (SubscriptionState) s.attachment();
            if (state.deltaBase != null && EndpointTable.matches(s.pattern(), message.endpoint())) {
                state.deltaBase.put(message.endpoint(), message.seq());
            }
        }
    }

    private void drainBacklogs() {
        for (Subscription s : subscriptions.values()) {
            SubscriptionState state = (SubscriptionState) s.attachment();
            while (!state.recovering && channel.isWritable()) {
                EncodedMessage next = state.backlog.poll();
                if (next == null) {
                    next = state.held.poll();
                    if (next == null) {
                        break;
                    }
                }
                state.heldBytes -= next.bytes();
                heldBytes -= next.bytes();
                write(s, state, next);
            }
        }
    }

    /** Bytes queued in the socket plus those the session keeps for the client. */
    private long outstanding() {
        return queued() + conflation.bytes() + heldBytes;
    }

    /** What the transport has written that is not on the socket yet. */
    private long queued() {
        long queued = wire.queuedBytes();
        if (queued >= 0) {
            return queued;
        }
        ChannelOutboundBuffer buffer = channel.unsafe().outboundBuffer();
        return buffer == null ? 0 : buffer.totalPendingWriteBytes();
    }

    private void enforceLimit() {
        if (closing || !channel.isActive()) {
            return;
        }
        long queued = queued();
        if (queued + conflation.bytes() + heldBytes > services.outbound().maxBytes()) {
            services.metrics().slowClientClosed();
            LOG.info("{}: closing slow client: {} bytes queued, {} conflated, {} held exceed outbound.maxBytes {}",
                    channel.remoteAddress(), queued, conflation.bytes(), heldBytes, services.outbound().maxBytes());
            closeSlow("slow client: outbound limit exceeded");
        }
    }

    private void closeSlow(String reason) {
        close(CloseCodes.SLOW_CLIENT, reason, services.outbound().slowCloseGrace());
    }

    private void cancelSlowDeadline() {
        if (slowDeadline != null) {
            slowDeadline.cancel(false);
            slowDeadline = null;
        }
    }

    // ---- replies and closing

    /**
     * A reply or notice of the session's own (before connect too): queued like messages, so it counts against
     * {@code outbound.maxBytes}; no request is read while the socket is above the high-water mark (the
     * {@link io.sluice.flow.WritabilityGate}s), so replies cannot pile up faster than the client takes them.
     */
    void control(byte[] json) {
        if (closing) {
            return;
        }
        wire.control(json);
        enforceLimit();
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
        return closing || slowDeadline != null;
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
        if (waitingForReader != null) {
            waitingForReader.forEach(ByteBuf::release);
            waitingForReader = null;
        }
        cancelSlowDeadline();
        authentication.end();
        for (Subscription s : new ArrayList<>(subscriptions.values())) {
            unsubscribe(s);
        }
        conflation.clear();
    }
}
