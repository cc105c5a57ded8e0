package io.sluice.bridge.mqtt;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import io.netty.channel.Channel;
import io.netty.util.concurrent.ScheduledFuture;
import io.sluice.bridge.config.MqttSessionsConfig;

/**
 * One connection's hold on a persistent session (docs/bridge-mqtt.md#sessions): in, the connection's filters
 * ({@link MqttSubscriptions}) and positions ({@link DeliveryPositions}) as they change; out, the session's record in
 * the {@link SessionStore}, written when the connection takes the session, then at most once per
 * {@code mqtt.sessions.checkpointInterval} while something changed (or before the record's expiry comes near), and
 * once more when the connection ends: so a node that crashes leaves at most one interval of positions unwritten,
 * which its client gets again (QoS 1 permits duplicates) and never loses. A connection whose session another took
 * over writes nothing more. Event loop only.
 */
final class PersistentSession {

    private static final Logger LOG = LoggerFactory.getLogger(PersistentSession.class);
    /** Room kept in {@code maxStateBytes} for marks that grow between subscribes (unacknowledged deliveries). */
    private static final int BYTES_PER_INFLIGHT = 24;

    private final SessionStore store;
    private final MqttSessionsConfig config;
    private final SessionKey key;
    private final String owner;
    private final long generation;
    private final MqttSubscriptions subscriptions;
    private final DeliveryPositions positions;
    private final Channel channel;
    private final int window;
    private long expirySeconds;
    private boolean subscriptionsChanged;
    private long lastWrite;
    private ScheduledFuture<?> ticks;
    private boolean over;

    PersistentSession(SessionStore store, SessionKey key, String owner, long generation, long expirySeconds,
                      MqttSubscriptions subscriptions, DeliveryPositions positions, Channel channel, int window) {
        this.store = store;
        this.config = store.config();
        this.key = key;
        this.owner = owner;
        this.generation = generation;
        this.expirySeconds = expirySeconds;
        this.subscriptions = subscriptions;
        this.positions = positions;
        this.channel = channel;
        this.window = window;
    }

    /**
     * Takes the session: written at once, so that a connection holding it on any node learns it was taken over.
     * Completes once this node has read the record back.
     */
    CompletableFuture<Void> start(Runnable takenOver) {
        store.hold(key, owner, generation, () -> channel.eventLoop().execute(() -> {
            if (!over) {
                over = true;
                cancelTicks();
                takenOver.run();
            }
        }));
        long every = config.checkpointInterval().toMillis();
        ticks = channel.eventLoop().scheduleAtFixedRate(this::tick, every, every, TimeUnit.MILLISECONDS);
        return write(true);
    }

    /** A SUBSCRIBE or UNSUBSCRIBE changed the filters: written with the next checkpoint, or now if none was lately. */
    void subscriptionsChanged() {
        subscriptionsChanged = true;
        if (System.currentTimeMillis() - lastWrite >= config.checkpointInterval().toMillis()) {
            write(true);
        }
    }

    /**
     * Whether the state still fits {@code mqtt.sessions.maxStateBytes} with room for a full window of unacknowledged
     * deliveries: a SUBSCRIBE that makes it larger is refused.
     */
    boolean fits() {
        return state(true, false).encode().length + (long) window * BYTES_PER_INFLIGHT <= config.maxStateBytes();
    }

    /** A DISCONNECT's new Session Expiry Interval (MQTT 5), bounded by {@code mqtt.sessions.maxExpiry}. */
    void expiry(long seconds) {
        expirySeconds = Math.min(seconds, config.maxExpiry().toSeconds());
    }

    /**
     * The connection ended: the session is written as disconnected, to live {@code expirySeconds} from now, or ended
     * (a tombstone) when that is 0.
     */
    void end() {
        if (over) {
            return;
        }
        over = true;
        cancelTicks();
        store.release(key, owner);
        if (expirySeconds == 0) {
            store.end(key);
            return;
        }
        write(false);
    }

    /** The session stays as Kafka has it: this connection writes nothing more (a resume the node could not serve). */
    void abandon() {
        over = true;
        cancelTicks();
        store.release(key, owner);
    }

    private void tick() {
        if (over) {
            return;
        }
        boolean refresh = System.currentTimeMillis() - lastWrite >= expirySeconds * 1000;
        if (subscriptionsChanged || positions.dirty() || refresh) {
            write(true);
        }
    }

    private CompletableFuture<Void> write(boolean connected) {
        SessionState state = state(connected, true);
        if (state.encode().length > config.maxStateBytes()) {
            state = state(connected, false);
            if (state.encode().length > config.maxStateBytes()) {
                // More partitions appeared under the filters than the subscribe was checked with: the last record stays.
                LOG.warn("MQTT session of {} outgrew mqtt.sessions.maxStateBytes; its positions are not written", channel.remoteAddress());
                return CompletableFuture.completedFuture(null);
            }
        }
        lastWrite = System.currentTimeMillis();
        subscriptionsChanged = false;
        positions.clean();
        CompletableFuture<Void> written = store.write(key, state);
        written.whenComplete((ignored, error) -> {
            if (error != null) {
                LOG.debug("MQTT session of {} not written: {}", channel.remoteAddress(), error.toString());
            }
        });
        return written;
    }

    /**
     * The record: while connected it expires one expiry plus two checkpoints after this write (the ticks rewrite it
     * before then), once disconnected one expiry from now.
     */
    private SessionState state(boolean connected, boolean precise) {
        long now = System.currentTimeMillis();
        long expiresAt = now + expirySeconds * 1000 + (connected ? 2 * config.checkpointInterval().toMillis() : 0);
        return new SessionState(generation, owner, connected, expirySeconds, expiresAt, subscriptions.filters(), positions.marks(precise));
    }

    private void cancelTicks() {
        if (ticks != null) {
            ticks.cancel(false);
            ticks = null;
        }
    }
}
