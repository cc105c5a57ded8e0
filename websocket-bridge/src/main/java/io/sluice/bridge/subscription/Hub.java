package io.sluice.bridge.subscription;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.locks.ReentrantLock;

import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.common.TopicPartition;
import org.slf4j.LoggerFactory;

import io.netty.buffer.ByteBuf;
import io.sluice.bridge.config.DeltaConfig;
import io.sluice.bridge.config.RecoveryConfig;
import io.sluice.bridge.selection.FilterLimits;
import io.sluice.format.Formats;
import io.sluice.bridge.kafka.PartitionEpochs;
import io.sluice.bridge.kafka.RecordSink;
import io.sluice.bridge.metrics.BridgeMetrics;
import io.sluice.bridge.protocol.ClientRequest.Position;
import io.sluice.bridge.protocol.EncodedMessage;
import io.sluice.bridge.protocol.MessageEncoder;
import io.sluice.bridge.protocol.RecordFailures;
import io.sluice.bridge.protocol.RecordMessages;
import io.sluice.bridge.recovery.RecoveryCache;
import io.sluice.bridge.recovery.RecoveryPlan;
import io.sluice.bridge.subscription.SubscriptionIndex.Order;

/**
 * Who is subscribed to what, and the point where live records meet subscriptions. The reader thread encodes each
 * record once, and computes its delta when a delta subscriber may want one, outside the lock; then under the lock it
 * appends the records to the cache and picks their subscribers. A subscribe takes the same lock to join the stream and
 * plan its recovery, so every message lands either in the recovery or in the live stream of a new subscription, never
 * in both and never in neither. Nothing done per record for one endpoint holds the lock that every subscribe,
 * unsubscribe and the node's shutdown wait on.
 *
 * <p>The hub holds the lock and keeps the {@link RecordSink} contract; under the lock it asks the
 * {@link SubscriptionIndex} who covers an endpoint, the {@link Groups} which selection a subscription gets, and the
 * {@link RecoveryPlanner} how a subscription catches up; the {@link Dispatcher} hands each message to its receivers.
 * None of those takes a lock of its own.
 */
public final class Hub implements RecordSink {

    private final EndpointTable table;
    private final PartitionEpochs epochs;
    private final DeltaConfig deltaConfig;
    private final RecoveryCache cache;
    private final MessageEncoder encoder;
    private final RecordMessages records;
    private final BridgeMetrics metrics;
    /** A record whose work threw unexpectedly: counted, one line per cause per interval, and skipped. */
    private final RecordFailures failures;
    private final ReentrantLock lock = new ReentrantLock();

    // Guarded by lock (the Dispatcher's work after the lock excepted: see its comment).
    private final SubscriptionIndex index = new SubscriptionIndex();
    private final Groups groups;
    private final RecoveryPlanner planner;
    private final Dispatcher dispatcher;
    // Written under lock; read without it to skip looking for delta subscribers when there are none.
    private volatile int deltaSubscriptions;
    // Read without the lock (for the subscribed reply and readiness).
    private final Map<String, Long> started = new ConcurrentHashMap<>();

    public Hub(EndpointTable table, PartitionEpochs epochs, RecoveryConfig recoveryConfig, DeltaConfig deltaConfig,
               MessageEncoder encoder, BridgeMetrics metrics) {
        this(table, epochs, recoveryConfig, deltaConfig, FilterLimits.defaults(), Formats.none(), encoder, metrics);
    }

    public Hub(EndpointTable table, PartitionEpochs epochs, RecoveryConfig recoveryConfig, DeltaConfig deltaConfig,
               FilterLimits filterLimits, Formats formats, MessageEncoder encoder, BridgeMetrics metrics) {
        this.records = new RecordMessages(encoder, formats, metrics::decodeFailed);
        this.table = table;
        this.epochs = epochs;
        this.deltaConfig = deltaConfig;
        this.cache = new RecoveryCache(recoveryConfig);
        this.encoder = encoder;
        this.metrics = metrics;
        this.failures = new RecordFailures(LoggerFactory.getLogger(Hub.class), metrics::recordFailed);
        this.groups = new Groups(filterLimits.maxGroupsPerEndpoint(), metrics);
        this.planner = new RecoveryPlanner(table, epochs, recoveryConfig, cache, metrics);
        this.dispatcher = new Dispatcher(index, encoder, deltaConfig, metrics, failures);
    }

    public EndpointTable table() {
        return table;
    }

    public PartitionEpochs epochs() {
        return epochs;
    }

    // ---- the reader's side

    @Override
    public void started(Map<TopicPartition, Long> startOffsets) {
        lock.lock();
        try {
            startOffsets.forEach((tp, offset) -> {
                String epoch = epochs.epoch(tp);
                planner.started(epoch, offset);
                started.put(epoch, offset);
            });
        }
        finally {
            lock.unlock();
        }
    }

    @Override
    public void accept(ConsumerRecords<byte[], byte[]> records, Map<TopicPartition, Long> positions) {
        groups.releaseRetired();
        List<EncodedMessage> messages = new ArrayList<>(records.count());
        // Per message, the one before it on the same endpoint in this batch (null: the cache's latest is).
        List<EncodedMessage> before = new ArrayList<>(records.count());
        Map<String, EncodedMessage> lastInBatch = new HashMap<>();
        for (ConsumerRecord<byte[], byte[]> record : records) {
            metrics.recordRead();
            String epoch = epochs.epoch(new TopicPartition(record.topic(), record.partition()));
            if (epoch == null) {
                continue;
            }
            try {
                RecordMessages.Record decoded = this.records.decode(record);
                if (!decoded.routable()) {
                    continue; // an undecodable key: on no endpoint (RecordMessages.Record#routable)
                }
                for (String endpoint : table.endpointsFor(record.topic(), decoded.key() == null ? "" : decoded.key())) {
                    EncodedMessage message = decoded.on(endpoint, epoch);
                    if (message == null) {
                        continue; // an undecodable value its topic's policy drops
                    }
                    messages.add(message);
                    before.add(message.notice() ? null : lastInBatch.put(endpoint, message));
                }
            }
            catch (Throwable e) {
                // Decoding failures are the codec's (RecordMessages applies the policy); this is whatever else one record's
                // encoding throws: that record is skipped (on the endpoints it had not reached yet), the batch goes on.
                failures.failed("decode", e);
            }
        }
        if (deltaSubscriptions > 0) {
            attachDeltas(messages, before);
        }
        long now = System.nanoTime();
        // With selecting subscriptions, only who may receive each message is settled under the lock (with the cache
        // append, so a subscribe sees each message in its recovery or its live stream); filters, projections and their
        // deltas are worked out after it, on this thread.
        List<List<Subscription<?>>> candidates = null;
        lock.lock();
        try {
            if (groups.selecting()) {
                candidates = new ArrayList<>(messages.size());
            }
            for (EncodedMessage message : messages) {
                if (candidates == null) {
                    dispatcher.dispatch(message);
                }
                else {
                    candidates.add(dispatcher.candidates(message.endpoint()));
                }
                if (!message.notice()) {
                    cache.append(message, now);
                }
            }
            positions.forEach((tp, position) -> {
                String epoch = epochs.epoch(tp);
                if (epoch != null) {
                    planner.passed(epoch, position);
                }
            });
        }
        finally {
            lock.unlock();
        }
        if (candidates != null) {
            dispatcher.dispatchSelected(messages, candidates);
        }
        dispatcher.send();
    }

    /**
     * Computes the deltas of the messages that a delta subscriber receives, outside the lock: under it only the bases
     * are looked up (a few map reads per message). The bases found stay right until the batch is appended, because the
     * reader thread is the only one that changes the cache. A delta subscription that joins in between gets these
     * messages whole, which the protocol always allows; one that leaves makes a delta go unused. The diff's cost is
     * bounded by {@code delta} limits; a message over them goes whole.
     */
    private void attachDeltas(List<EncodedMessage> messages, List<EncodedMessage> before) {
        List<EncodedMessage> targets = new ArrayList<>();
        List<EncodedMessage> bases = new ArrayList<>();
        lock.lock();
        try {
            for (int i = 0; i < messages.size(); i++) {
                EncodedMessage message = messages.get(i);
                if (message.json() == null || !deltaWanted(message.endpoint())) {
                    continue;
                }
                EncodedMessage base = before.get(i) != null ? before.get(i) : cache.latest(message.endpoint());
                if (base != null && base.json() != null && message.epoch().equals(base.epoch())) {
                    targets.add(message);
                    bases.add(base);
                }
            }
        }
        finally {
            lock.unlock();
        }
        // Before any reference is handed out: a message's references cover its delta frame too.
        for (int i = 0; i < targets.size(); i++) {
            ByteBuf delta;
            try {
                delta = encoder.delta(bases.get(i), targets.get(i), deltaConfig);
            }
            catch (Throwable e) {
                failures.failed("delta", e);
                continue; // the message goes whole, as one over the delta limits does
            }
            if (delta != null) {
                targets.get(i).attachDelta(delta, bases.get(i).seq());
            }
        }
    }

    /** Whether a delta subscription receives this endpoint. Under lock. */
    private boolean deltaWanted(String endpoint) {
        return !index.walk(endpoint, Order.LEAST_SPECIFIC_FIRST, Hub::noDelta);
    }

    private static boolean noDelta(List<Subscription<?>> subscriptions) {
        for (Subscription<?> s : subscriptions) {
            if (s.delta()) {
                return false;
            }
        }
        return true;
    }

    @Override
    public void idle() {
        groups.releaseRetired();
        lock.lock();
        try {
            cache.expire(System.nanoTime());
        }
        finally {
            lock.unlock();
        }
    }

    // ---- the subscribers' side

    /**
     * Joins the live stream and plans the catch-up: from {@code recover} positions when given, else the latest
     * cached message of each endpoint when {@code snapshot}. Live messages reach the subscription's outlet from the
     * next batch on; everything before is in the plan.
     */
    public RecoveryPlan subscribe(Subscription<?> subscription, List<Position> recover, boolean snapshot) throws TooManyGroupsException {
        lock.lock();
        try {
            groups.join(subscription);
            index.add(subscription);
            metrics.subscriptionAdded();
            if (subscription.delta()) {
                deltaSubscriptions++;
            }
            return planner.plan(subscription.pattern(), recover, snapshot);
        }
        finally {
            lock.unlock();
        }
    }

    public void unsubscribe(Subscription<?> subscription) {
        lock.lock();
        try {
            if (index.remove(subscription)) {
                groups.leave(subscription);
                metrics.subscriptionRemoved();
                if (subscription.delta()) {
                    deltaSubscriptions--;
                }
            }
        }
        finally {
            lock.unlock();
        }
    }

    /** Partitions the reader has started, and where. */
    public Map<String, Long> started() {
        return Map.copyOf(started);
    }

    public void close() {
        lock.lock();
        try {
            groups.retireAll();
            groups.releaseRetired();
            cache.clear();
        }
        finally {
            lock.unlock();
        }
    }
}
