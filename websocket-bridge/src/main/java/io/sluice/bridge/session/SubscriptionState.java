package io.sluice.bridge.session;

import java.util.ArrayDeque;
import java.util.HashMap;
import java.util.Map;

import io.sluice.bridge.protocol.EncodedMessage;

/**
 * A subscription's delivery state, the connection's own: each {@code Subscription<SubscriptionState>} carries one,
 * touched on the connection's event loop only ({@link Outbound}, {@link CatchUp}, {@link Session}). While a
 * subscription catches up, recovered messages (and notices) wait in {@code backlog} and live ones in {@code held}; the
 * backlog goes out first, so the client sees one ordered stream.
 */
final class SubscriptionState {

    boolean active = true;
    /** The canonical form of the token's row filter this subscription was made with, or null without one. */
    String mandatory;
    /** Waiting for the Kafka log: live messages go to {@link #held}. */
    boolean recovering;
    final ArrayDeque<EncodedMessage> backlog = new ArrayDeque<>();
    final ArrayDeque<EncodedMessage> held = new ArrayDeque<>();
    long heldBytes;
    /**
     * Per epoch, the seq up to which the client already has every message because it came from a node further
     * ahead; live messages up to it are dropped. Null in the usual case.
     */
    Map<String, Long> skipUpTo;
    /** Delta subscriptions: the seq of the last message of each endpoint this client has, the base of the next delta. */
    final Map<String, Long> deltaBase;

    SubscriptionState(boolean delta) {
        this.deltaBase = delta ? new HashMap<>() : null;
    }

    /** True if the client already has this message; forgets each mark once the stream has passed it. */
    boolean alreadyHas(EncodedMessage message) {
        if (skipUpTo == null || message.notice()) {
            return false;
        }
        Long upTo = skipUpTo.get(message.epoch());
        if (upTo == null) {
            return false;
        }
        if (message.seq() <= upTo) {
            return true;
        }
        skipUpTo.remove(message.epoch());
        if (skipUpTo.isEmpty()) {
            skipUpTo = null;
        }
        return false;
    }

    boolean catchingUp() {
        return recovering || !backlog.isEmpty() || !held.isEmpty();
    }

    void releaseAll() {
        active = false;
        backlog.forEach(EncodedMessage::release);
        backlog.clear();
        held.forEach(EncodedMessage::release);
        held.clear();
        heldBytes = 0;
    }
}
