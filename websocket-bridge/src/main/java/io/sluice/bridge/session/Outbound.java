package io.sluice.bridge.session;

import java.util.Collection;
import java.util.Iterator;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import java.util.function.Consumer;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import io.netty.buffer.ByteBuf;
import io.netty.channel.Channel;
import io.netty.channel.ChannelOutboundBuffer;
import io.netty.util.concurrent.EventExecutor;
import io.netty.util.concurrent.ScheduledFuture;
import io.sluice.bridge.config.OutboundConfig;
import io.sluice.bridge.metrics.BridgeMetrics;
import io.sluice.bridge.metrics.TransportMetrics;
import io.sluice.bridge.protocol.EncodedMessage;
import io.sluice.bridge.protocol.ServerMessages;
import io.sluice.bridge.subscription.EndpointTable;
import io.sluice.bridge.subscription.Outlet;
import io.sluice.bridge.subscription.Subscription;

/**
 * What a session owes its client on the way out, and the {@link Outlet} its subscriptions' live messages arrive at. In: live messages of its subscriptions, their catch-up backlogs,
 * the session's own replies, and the socket's writability changes. Out: frames through the {@link Wire} while the
 * connection keeps up; past the high-water mark, the latest message per endpoint kept ({@link Conflation}); a 4008
 * close asked of the session past {@code outbound.maxBytes}, or when the client stays behind for longer than
 * {@code outbound.maxSlowTime} (the slow-client clock, on the channel's event loop). Everything it holds for the client
 * counts against {@code outbound.maxBytes}: the socket's queue (messages, replies, pongs), conflated messages, live
 * messages waiting behind a recovery, and the recovery backlog itself.
 *
 * <p>Event loop only, like its session.
 */
final class Outbound extends Outlet<SubscriptionState> {

    private static final Logger LOG = LoggerFactory.getLogger(Outbound.class);

    private final Channel channel;
    private final Wire wire;
    private final TransportMetrics transport;
    private final BridgeMetrics metrics;
    private final OutboundConfig config;
    private final Collection<Subscription<SubscriptionState>> subscriptions;
    private final BooleanSupplier closing;
    private final Consumer<String> closeSlow;
    private final Conflation conflation = new Conflation();
    // Bytes waiting in the session for the client: live messages behind a recovery and the recovery backlogs.
    private long heldBytes;
    private boolean dirty;
    private ScheduledFuture<?> slowDeadline;

    /**
     * @param subscriptions the session's subscriptions, a live view
     * @param closing       whether the session has started closing: nothing more goes out then
     * @param closeSlow     closes the connection as a slow client (4008) with the given reason
     */
    Outbound(Channel channel, Wire wire, TransportMetrics transport, BridgeMetrics metrics, OutboundConfig config,
             Collection<Subscription<SubscriptionState>> subscriptions, BooleanSupplier closing, Consumer<String> closeSlow) {
        this.channel = channel;
        this.wire = wire;
        this.transport = transport;
        this.metrics = metrics;
        this.config = config;
        this.subscriptions = subscriptions;
        this.closing = closing;
        this.closeSlow = closeSlow;
    }

    @Override
    public EventExecutor executor() {
        return channel.eventLoop();
    }

    /** A live message of a subscription; takes over the reference. */
    @Override
    public void deliver(Subscription<SubscriptionState> subscription, EncodedMessage message) {
        SubscriptionState state = subscription.state();
        if (!state.active || closing.getAsBoolean() || state.alreadyHas(message)) {
            message.release();
            return;
        }
        if (state.catchingUp()) {
            // Behind recovered messages: wait in line, counted against the limit like conflated bytes.
            state.hold(message);
            state.heldBytes += message.bytes();
            heldBytes += message.bytes();
            enforceLimit();
            return;
        }
        if (!conflation.isEmpty() || !channel.isWritable()) {
            if (conflation.keep(message)) {
                metrics.conflated();
            }
            enforceLimit();
            return;
        }
        write(subscription, state, message);
    }

    /** Puts a message in a subscription's catch-up backlog, where it counts against {@code outbound.maxBytes}. */
    void toBacklog(SubscriptionState state, EncodedMessage message) {
        state.toBacklog(message);
        state.heldBytes += message.bytes();
        heldBytes += message.bytes();
    }

    /** A subscription ended: what it held for the client is released and no longer counted. */
    void forget(SubscriptionState state) {
        heldBytes -= state.heldBytes;
        state.releaseAll();
    }

    /** Writes a message (releasing the caller's reference), as a delta when the client holds its base. */
    private void write(Subscription<SubscriptionState> subscription, SubscriptionState state, EncodedMessage message) {
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

    /** Flushes what was written since the last flush, if anything. */
    @Override
    public void flush() {
        if (dirty) {
            dirty = false;
            wire.flush();
        }
    }

    /**
     * A reply or notice of the session's own (before connect too): queued like messages, so it counts against
     * {@code outbound.maxBytes}; no request is read while the socket is above the high-water mark (the
     * {@link io.sluice.flow.WritabilityGate}s), so replies cannot pile up faster than the client takes them.
     */
    void control(byte[] json) {
        if (closing.getAsBoolean()) {
            return;
        }
        wire.control(json);
        enforceLimit();
    }

    /**
     * The socket went above the high-water mark. Conflation bounds what the connection costs in memory, not how long
     * it holds its subscriptions and socket: unless it drains below the low-water mark within
     * {@code outbound.maxSlowTime}, it is closed with 4008.
     */
    void unwritable() {
        if (slowDeadline == null && !closing.getAsBoolean()) {
            slowDeadline = channel.eventLoop().schedule(this::slowTooLong, config.maxSlowTime().toMillis(), TimeUnit.MILLISECONDS);
        }
    }

    /** Whether the slow-client clock is running. */
    boolean slowClockRunning() {
        return slowDeadline != null;
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
        for (Subscription<SubscriptionState> s : subscriptions) {
            SubscriptionState state = s.state();
            if (!state.recovering && state.waiting()) {
                return false;
            }
        }
        return true;
    }

    private void slowTooLong() {
        slowDeadline = null;
        // Not active: the WritabilityGate closed it for the same reason a moment ago (its close is still under way).
        if (closing.getAsBoolean() || !channel.isActive() || caughtUp()) {
            return;
        }
        metrics.slowClientTimedOut();
        LOG.info("{}: closing slow client: behind (above outbound.highWaterMarkBytes, or with messages waiting) for outbound.maxSlowTime {}",
                channel.remoteAddress(), config.maxSlowTime());
        closeSlow.accept("slow client: not reading for too long");
    }

    /** The socket drained below the low-water mark: send what waited, oldest first, while it keeps up. */
    void writable() {
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
        for (Subscription<SubscriptionState> s : subscriptions) {
            SubscriptionState state = s.state();
            if (state.deltaBase != null && EndpointTable.matches(s.pattern(), message.endpoint())) {
                state.deltaBase.put(message.endpoint(), message.seq());
            }
        }
    }

    /** Writes the backlogs of the subscriptions that are done recovering, then their held live messages, while writable. */
    void drainBacklogs() {
        for (Subscription<SubscriptionState> s : subscriptions) {
            SubscriptionState state = s.state();
            while (!state.recovering && channel.isWritable()) {
                EncodedMessage next = state.nextWaiting();
                if (next == null) {
                    break;
                }
                state.heldBytes -= next.bytes();
                heldBytes -= next.bytes();
                write(s, state, next);
            }
        }
    }

    /** Bytes queued in the socket plus those the session keeps for the client. */
    long outstanding() {
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

    /** Closes the connection (4008) when it holds more than {@code outbound.maxBytes} for the client. */
    void enforceLimit() {
        if (closing.getAsBoolean() || !channel.isActive()) {
            return;
        }
        long queued = queued();
        if (queued + conflation.bytes() + heldBytes > config.maxBytes()) {
            metrics.slowClientClosed();
            LOG.info("{}: closing slow client: {} bytes queued, {} conflated, {} held exceed outbound.maxBytes {}",
                    channel.remoteAddress(), queued, conflation.bytes(), heldBytes, config.maxBytes());
            closeSlow.accept("slow client: outbound limit exceeded");
        }
    }

    private void cancelSlowDeadline() {
        if (slowDeadline != null) {
            slowDeadline.cancel(false);
            slowDeadline = null;
        }
    }

    /** The session ends: the slow clock stops and the conflated messages are released. */
    void release() {
        cancelSlowDeadline();
        conflation.clear();
    }
}
