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
    // Both null while empty, which they are but for a catch-up: two empty deques were 208 bytes per subscription
    // (docs/bridge.md, "Memory per connection").
    private ArrayDeque<EncodedMessage> backlog;
    private ArrayDeque<EncodedMessage> held;
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
        return recovering || waiting();
    }

    /** Whether recovered or held live messages wait to be written. */
    boolean waiting() {
        return backlog != null || held != null;
    }

    void toBacklog(EncodedMessage message) {
        if (backlog == null) {
            backlog = new ArrayDeque<>();
        }
        backlog.add(message);
    }

    void hold(EncodedMessage message) {
        if (held == null) {
            held = new ArrayDeque<>();
        }
        held.add(message);
    }

    /** The next message waiting: the backlog's first, then the held live ones; null when none waits. */
    EncodedMessage nextWaiting() {
        if (backlog != null) {
            EncodedMessage next = backlog.poll();
            if (backlog.isEmpty()) {
                backlog = null;
            }
            return next;
        }
        if (held != null) {
            EncodedMessage next = held.poll();
            if (held.isEmpty()) {
                held = null;
            }
            return next;
        }
        return null;
    }

    void releaseAll() {
        active = false;
        if (backlog != null) {
            backlog.forEach(EncodedMessage::release);
            backlog = null;
        }
        if (held != null) {
            held.forEach(EncodedMessage::release);
            held = null;
        }
        heldBytes = 0;
    }
}
