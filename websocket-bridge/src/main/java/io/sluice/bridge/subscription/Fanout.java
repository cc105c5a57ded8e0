package io.sluice.bridge.subscription;

import java.util.ArrayList;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.RejectedExecutionException;

import io.netty.util.concurrent.EventExecutor;
import io.sluice.bridge.metrics.BridgeMetrics;
import io.sluice.bridge.protocol.EncodedMessage;

/**
 * Groups one poll's deliveries by event loop and hands each loop a single task, so a batch costs one task per loop
 * rather than one per subscriber and message, and each connection is flushed once per batch however many messages it
 * got. Used by the reader thread only.
 */
final class Fanout {

    private final BridgeMetrics metrics;
    private Map<EventExecutor, Batch> batches = new IdentityHashMap<>();
    // The size of each loop's last batch: the next one starts that large instead of growing to it copy by copy.
    private final Map<EventExecutor, Integer> lastSizes = new IdentityHashMap<>();

    Fanout(BridgeMetrics metrics) {
        this.metrics = metrics;
    }

    /** {@code message} must already be retained for this delivery. */
    void add(Subscription<?> subscription, EncodedMessage message) {
        EventExecutor executor = subscription.executor();
        Batch batch = batches.get(executor);
        if (batch == null) {
            batch = new Batch(metrics, lastSizes.getOrDefault(executor, 16));
            batches.put(executor, batch);
        }
        batch.add(subscription, message);
    }

    /** Sends the collected batches to their loops and starts collecting anew. */
    void send() {
        if (batches.isEmpty()) {
            return;
        }
        Map<EventExecutor, Batch> full = batches;
        batches = new IdentityHashMap<>();
        full.forEach((executor, batch) -> {
            lastSizes.put(executor, batch.size());
            try {
                executor.execute(batch);
            }
            catch (RejectedExecutionException e) {
                // The loop is shutting down with its connections; nothing will write these.
                batch.discard();
            }
        });
    }

    private static final class Batch implements Runnable {
        private final BridgeMetrics metrics;
        private final List<Subscription<?>> subscriptions;
        private final List<EncodedMessage> messages;

        Batch(BridgeMetrics metrics, int expectedSize) {
            this.metrics = metrics;
            this.subscriptions = new ArrayList<>(expectedSize);
            this.messages = new ArrayList<>(expectedSize);
        }

        int size() {
            return messages.size();
        }

        void add(Subscription<?> subscription, EncodedMessage message) {
            subscriptions.add(subscription);
            messages.add(message);
        }

        @Override
        public void run() {
            List<Outlet<?>> toFlush = new ArrayList<>(messages.size());
            EncodedMessage previous = null;
            long now = System.currentTimeMillis();
            for (int i = 0; i < messages.size(); i++) {
                EncodedMessage message = messages.get(i);
                Subscription<?> subscription = subscriptions.get(i);
                Outlet<?> outlet = subscription.outlet();
                if (message != previous) {
                    // Deliveries of one record are adjacent: one latency sample per record and loop, not per subscriber.
                    metrics.endToEndLatency(now - message.timestamp());
                    previous = message;
                }
                subscription.deliver(message);
                if (!outlet.flushPending) {
                    outlet.flushPending = true;
                    toFlush.add(outlet);
                }
            }
            for (Outlet<?> outlet : toFlush) {
                outlet.flushPending = false;
                outlet.flush();
            }
        }

        void discard() {
            messages.forEach(EncodedMessage::release);
        }
    }
}
