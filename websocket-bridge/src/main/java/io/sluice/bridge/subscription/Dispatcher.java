package io.sluice.bridge.subscription;

import java.util.ArrayList;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;

import io.sluice.bridge.config.DeltaConfig;
import io.sluice.bridge.metrics.BridgeMetrics;
import io.sluice.bridge.protocol.EncodedMessage;
import io.sluice.bridge.protocol.MessageEncoder;
import io.sluice.bridge.protocol.RecordFailures;
import io.sluice.bridge.subscription.SubscriptionIndex.Order;

/**
 * Hands the reader's live messages to their receivers, once per connection. In: one batch's messages, and who covers
 * each (the {@link SubscriptionIndex}); out: each receiving subscription's message (its group's selection when it has
 * one) in per-loop batches through {@link Fanout}, sent with {@link #send}. A connection with overlapping
 * subscriptions ({@code /t/k} and {@code /t/*}) gets a message through one of them only.
 *
 * <p>Not thread-safe: the reader thread's. {@link #dispatch} and {@link #candidates} read the index and are called under
 * the hub's lock; {@link #dispatchSelected} and {@link #send} after it.
 */
final class Dispatcher {

    private final SubscriptionIndex index;
    private final MessageEncoder encoder;
    private final DeltaConfig deltaConfig;
    private final BridgeMetrics metrics;
    private final RecordFailures failures;
    private final Fanout fanout;
    // Stamps each dispatch so that a connection gets each message once (Outlet#lastDispatched).
    private long dispatchCounter;

    Dispatcher(SubscriptionIndex index, MessageEncoder encoder, DeltaConfig deltaConfig, BridgeMetrics metrics, RecordFailures failures) {
        this.index = index;
        this.encoder = encoder;
        this.deltaConfig = deltaConfig;
        this.metrics = metrics;
        this.failures = failures;
        this.fanout = new Fanout(metrics);
    }

    /** Every subscription that covers the endpoint: exact first, then prefixes, longest (most specific) first. Under lock. */
    List<Subscription<?>> candidates(String endpoint) {
        List<Subscription<?>> found = new ArrayList<>();
        index.walk(endpoint, Order.MOST_SPECIFIC_FIRST, found::addAll);
        return found;
    }

    /**
     * Delivers each message once per connection, through the first of its subscriptions whose group selects it (a
     * subscription without a filter selects everything). Each group filters and projects a message once, whatever the
     * number of its subscribers. Reader thread, outside the lock.
     */
    void dispatchSelected(List<EncodedMessage> messages, List<List<Subscription<?>>> candidates) {
        for (int i = 0; i < messages.size(); i++) {
            EncodedMessage message = messages.get(i);
            long stamp = ++dispatchCounter;
            MessageView view = null;
            Map<Group, EncodedMessage> selected = null;
            for (Subscription<?> s : candidates.get(i)) {
                Outlet<?> outlet = s.outlet();
                if (outlet.lastDispatched == stamp) {
                    continue;
                }
                Group group = s.group();
                EncodedMessage out = message;
                if (group != null) {
                    if (selected == null) {
                        selected = new IdentityHashMap<>();
                        view = new MessageView(message);
                    }
                    if (selected.containsKey(group)) {
                        out = selected.get(group);
                    }
                    else {
                        out = select(group, message, view);
                        selected.put(group, out);
                        metrics.groupSelection();
                    }
                }
                if (out != null) {
                    outlet.lastDispatched = stamp;
                    fanout.add(s, out.retain());
                }
            }
            if (selected != null) {
                selected.values().forEach(out -> {
                    if (out != null) {
                        out.release();
                    }
                });
            }
        }
    }

    /** The group's view of the message; a selection, projection or delta that throws costs that message for that group. */
    private EncodedMessage select(Group group, EncodedMessage message, MessageView view) {
        try {
            return group.live(message, view, encoder.allocator(), encoder, deltaConfig);
        }
        catch (Throwable e) {
            failures.failed("select", e);
            return null;
        }
    }

    /** Delivers the message once per connection, through the first of its subscriptions covering it. Under lock. */
    void dispatch(EncodedMessage message) {
        String endpoint = message.endpoint();
        List<Subscription<?>> receivers;
        if (!index.hasPrefixes()) {
            // Only exact subscriptions, at most one per connection and endpoint: nothing to de-duplicate.
            receivers = index.exactly(endpoint);
            if (receivers == null) {
                return;
            }
        }
        else {
            long stamp = ++dispatchCounter;
            List<Subscription<?>> found = new ArrayList<>();
            index.walk(endpoint, Order.LEAST_SPECIFIC_FIRST, covering -> collect(covering, stamp, found));
            receivers = found;
        }
        for (Subscription<?> s : receivers) {
            fanout.add(s, message.retain());
        }
    }

    /** Adds the subscriptions of connections that have none in this dispatch yet; always true (the walk goes on). */
    private static boolean collect(List<Subscription<?>> subscriptions, long stamp, List<Subscription<?>> into) {
        for (Subscription<?> s : subscriptions) {
            if (s.outlet().lastDispatched != stamp) {
                s.outlet().lastDispatched = stamp;
                into.add(s);
            }
        }
        return true;
    }

    /** Sends the batch's deliveries to the connections' loops. */
    void send() {
        fanout.send();
    }
}
