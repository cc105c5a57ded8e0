package io.sluice.bridge.subscription;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.IdentityHashMap;
import java.util.Queue;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.locks.ReentrantLock;

import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.utils.Utils;
import org.slf4j.LoggerFactory;

import io.netty.buffer.ByteBuf;
import io.sluice.bridge.config.DeltaConfig;
import io.sluice.bridge.config.RecoveryConfig;
import io.sluice.bridge.filter.FilterLimits;
import io.sluice.bridge.kafka.PartitionEpochs;
import io.sluice.bridge.kafka.RecordSink;
import io.sluice.bridge.metrics.BridgeMetrics;
import io.sluice.bridge.protocol.ClientRequest.Position;
import io.sluice.bridge.protocol.EncodedMessage;
import io.sluice.bridge.protocol.MessageEncoder;
import io.sluice.bridge.protocol.RecordMessages;
import io.sluice.bridge.format.Formats;
import io.sluice.bridge.recovery.RecoveryCache;
import io.sluice.bridge.recovery.RecoveryPlan;
import io.sluice.bridge.protocol.PerRecord;
import io.sluice.logging.RateLimitedByCause;

/**
 * Who is subscribed to what, and the point where live records meet subscriptions. The reader thread encodes each
 * record once, and computes its delta when a delta subscriber may want one, outside the lock; then under the lock it
 * appends the records to the cache and picks their subscribers. A subscribe takes the same lock to join the stream and
 * plan its recovery, so every message lands either in the recovery or in the live stream of a new subscription, never
 * in both and never in neither. Nothing done per record for one endpoint holds the lock that every subscribe,
 * unsubscribe and the node's shutdown wait on.
 */
public final class Hub implements RecordSink {

    /** A record whose work threw unexpectedly: one line per cause per interval (the record is counted and skipped). */
    private static final RateLimitedByCause RECORD_FAILURES = new RateLimitedByCause(LoggerFactory.getLogger(Hub.class));

    private final EndpointTable table;
    private final PartitionEpochs epochs;
    private final RecoveryConfig recoveryConfig;
    private final DeltaConfig deltaConfig;
    private final RecoveryCache cache;
    private final MessageEncoder encoder;
    private final RecordMessages records;
    private final BridgeMetrics metrics;
    private final Fanout fanout;
    private final int maxGroupsPerEndpoint;
    private final ReentrantLock lock = new ReentrantLock();
    // Groups whose last subscriber left, for the reader thread to release their delta bases.
    private final Queue<Group> retired = new ConcurrentLinkedQueue<>();

    // Guarded by lock.
    private final Map<String, List<Subscription>> exact = new HashMap<>();
    private final Map<String, List<Subscription>> prefixes = new HashMap<>();
    private final Map<String, Long> done = new HashMap<>();
    private final Map<String, Group> groups = new HashMap<>();
    private final Map<String, Map<Group, Integer>> groupsByPattern = new HashMap<>();
    // Subscriptions with a filter or field list: while there are none, records are dispatched as before groups existed.
    private int selecting;
    private long dispatchCounter;
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
        this.maxGroupsPerEndpoint = filterLimits.maxGroupsPerEndpoint();
        this.table = table;
        this.epochs = epochs;
        this.recoveryConfig = recoveryConfig;
        this.deltaConfig = deltaConfig;
        this.cache = new RecoveryCache(recoveryConfig);
        this.encoder = encoder;
        this.metrics = metrics;
        this.fanout = new Fanout(metrics);
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
                cache.started(epoch, offset);
                done.put(epoch, offset - 1);
                started.put(epoch, offset);
            });
        }
        finally {
            lock.unlock();
        }
    }

    @Override
    public void accept(ConsumerRecords<byte[], byte[]> records, Map<TopicPartition, Long> positions) {
        releaseRetiredGroups();
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
                recordFailed("decode", e);
            }
        }
        if (deltaSubscriptions > 0) {
            attachDeltas(messages, before);
        }
        long now = System.nanoTime();
        // With selecting subscriptions, only who may receive each message is settled under the lock (with the cache
        // append, so a subscribe sees each message in its recovery or its live stream); filters, projections and their
        // deltas are worked out after it, on this thread.
        List<List<Subscription>> candidates = null;
        lock.lock();
        try {
            if (selecting > 0) {
                candidates = new ArrayList<>(messages.size());
            }
            for (EncodedMessage message : messages) {
                if (candidates == null) {
                    dispatch(message);
                }
                else {
                    candidates.add(candidates(message.endpoint()));
                }
                if (!message.notice()) {
                    cache.append(message, now);
                }
            }
            positions.forEach((tp, position) -> {
                String epoch = epochs.epoch(tp);
                if (epoch != null) {
                    done.put(epoch, position - 1);
                }
            });
        }
        finally {
            lock.unlock();
        }
        if (candidates != null) {
            dispatchSelected(messages, candidates);
        }
        fanout.send();
    }

    /** Every subscription that covers the endpoint: exact first, then prefixes, longest (most specific) first. Under lock. */
    private List<Subscription> candidates(String endpoint) {
        List<Subscription> found = new ArrayList<>();
        List<Subscription> onEndpoint = exact.get(endpoint);
        if (onEndpoint != null) {
            found.addAll(onEndpoint);
        }
        if (!prefixes.isEmpty()) {
            for (int i = endpoint.lastIndexOf('/'); i >= 0; i = i == 0 ? -1 : endpoint.lastIndexOf('/', i - 1)) {
                List<Subscription> under = prefixes.get(endpoint.substring(0, i + 1));
                if (under != null) {
                    found.addAll(under);
                }
            }
        }
        return found;
    }

    /**
     * Delivers each message once per connection, through the first of its subscriptions whose group selects it (a
     * subscription without a filter selects everything). Each group filters and projects a message once, whatever the
     * number of its subscribers. Reader thread, outside the lock.
     */
    private void dispatchSelected(List<EncodedMessage> messages, List<List<Subscription>> candidates) {
        for (int i = 0; i < messages.size(); i++) {
            EncodedMessage message = messages.get(i);
            long stamp = ++dispatchCounter;
            MessageView view = null;
            Map<Group, EncodedMessage> selected = null;
            for (Subscription s : candidates.get(i)) {
                Outlet outlet = s.outlet();
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
            recordFailed("select", e);
            return null;
        }
    }

    private void recordFailed(String stage, Throwable e) {
        PerRecord.rethrowIfFatal(e);
        metrics.recordFailed(stage);
        RECORD_FAILURES.log(e, "A record's {} failed; it cost that record only: {}", stage, PerRecord.reason(e));
    }

    private void releaseRetiredGroups() {
        for (Group g = retired.poll(); g != null; g = retired.poll()) {
            g.clearDeltaBases();
        }
    }

    private void dispatch(EncodedMessage message) {
        String endpoint = message.endpoint();
        List<Subscription> receivers;
        if (prefixes.isEmpty()) {
            // Only exact subscriptions, at most one per connection and endpoint: nothing to de-duplicate.
            receivers = exact.get(endpoint);
            if (receivers == null) {
                return;
            }
        }
        else {
            long stamp = ++dispatchCounter;
            receivers = new ArrayList<>();
            collect(exact.get(endpoint), stamp, receivers);
            for (int i = endpoint.indexOf('/'); i >= 0; i = endpoint.indexOf('/', i + 1)) {
                collect(prefixes.get(endpoint.substring(0, i + 1)), stamp, receivers);
            }
        }
        for (Subscription s : receivers) {
            fanout.add(s, message.retain());
        }
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
                recordFailed("delta", e);
                continue; // the message goes whole, as one over the delta limits does
            }
            if (delta != null) {
                targets.get(i).attachDelta(delta, bases.get(i).seq());
            }
        }
    }

    /** Whether a delta subscription receives this endpoint. Under lock. */
    private boolean deltaWanted(String endpoint) {
        if (anyDelta(exact.get(endpoint))) {
            return true;
        }
        if (!prefixes.isEmpty()) {
            for (int i = endpoint.indexOf('/'); i >= 0; i = endpoint.indexOf('/', i + 1)) {
                if (anyDelta(prefixes.get(endpoint.substring(0, i + 1)))) {
                    return true;
                }
            }
        }
        return false;
    }

    private static boolean anyDelta(List<Subscription> subscriptions) {
        if (subscriptions != null) {
            for (Subscription s : subscriptions) {
                if (s.delta()) {
                    return true;
                }
            }
        }
        return false;
    }

    private static void collect(List<Subscription> subscriptions, long stamp, List<Subscription> into) {
        if (subscriptions == null) {
            return;
        }
        for (Subscription s : subscriptions) {
            if (s.outlet().lastDispatched != stamp) {
                s.outlet().lastDispatched = stamp;
                into.add(s);
            }
        }
    }

    @Override
    public void idle() {
        releaseRetiredGroups();
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
    public RecoveryPlan subscribe(Subscription subscription, List<Position> recover, boolean snapshot) throws TooManyGroupsException {
        String pattern = subscription.pattern();
        boolean prefix = EndpointTable.isPrefix(pattern);
        List<RecoveryPlan.LogRead> reads = new ArrayList<>();
        List<RecoveryPlan.Gap> gaps = new ArrayList<>();
        List<EncodedMessage> cached = new ArrayList<>();
        List<Position> ahead = new ArrayList<>();
        lock.lock();
        try {
            joinGroup(subscription);
            (prefix ? prefixes.computeIfAbsent(EndpointTable.prefixOf(pattern), k -> new ArrayList<>())
                    : exact.computeIfAbsent(pattern, k -> new ArrayList<>())).add(subscription);
            metrics.subscriptionAdded();
            if (subscription.delta()) {
                deltaSubscriptions++;
            }
            for (Position position : recover) {
                plan(pattern, prefix, position, cached, reads, gaps, ahead);
            }
            if (recover.isEmpty() && snapshot) {
                if (prefix) {
                    cached.addAll(cache.latestUnder(EndpointTable.prefixOf(pattern)));
                }
                else {
                    EncodedMessage latest = cache.latest(pattern);
                    if (latest != null) {
                        cached.add(latest.retain());
                    }
                }
            }
            return new RecoveryPlan(positions(pattern), cached, reads, gaps, ahead);
        }
        finally {
            lock.unlock();
        }
    }

    /** Puts a selecting subscription in the group of its (filter, fields), refusing a group too many. Under lock. */
    private void joinGroup(Subscription subscription) throws TooManyGroupsException {
        if (subscription.filter() == null && subscription.projection() == null) {
            return;
        }
        String key = Group.keyOf(subscription.filter(), subscription.projection());
        Group group = groups.get(key);
        Map<Group, Integer> onPattern = groupsByPattern.get(subscription.pattern());
        boolean newOnPattern = group == null || onPattern == null || !onPattern.containsKey(group);
        if (newOnPattern && onPattern != null && onPattern.size() >= maxGroupsPerEndpoint) {
            throw new TooManyGroupsException(subscription.pattern(), maxGroupsPerEndpoint);
        }
        if (group == null) {
            group = new Group(subscription.filter(), subscription.projection());
            groups.put(key, group);
            metrics.groupAdded();
        }
        group.members++;
        if (subscription.delta()) {
            group.deltaMembers++;
        }
        groupsByPattern.computeIfAbsent(subscription.pattern(), p -> new HashMap<>()).merge(group, 1, Integer::sum);
        subscription.joined(group);
        selecting++;
    }

    /** Takes a leaving subscription out of its group; a group left empty is retired. Under lock. */
    private void leaveGroup(Subscription subscription) {
        Group group = subscription.group();
        if (group == null) {
            return;
        }
        selecting--;
        group.members--;
        if (subscription.delta()) {
            group.deltaMembers--;
        }
        Map<Group, Integer> onPattern = groupsByPattern.get(subscription.pattern());
        if (onPattern != null && onPattern.merge(group, -1, Integer::sum) <= 0) {
            onPattern.remove(group);
            if (onPattern.isEmpty()) {
                groupsByPattern.remove(subscription.pattern());
            }
        }
        if (group.members == 0) {
            groups.remove(group.key());
            metrics.groupRemoved();
            retired.add(group);
        }
    }

    private void plan(String pattern, boolean prefix, Position position, List<EncodedMessage> cached,
                      List<RecoveryPlan.LogRead> reads, List<RecoveryPlan.Gap> gaps, List<Position> ahead) {
        String epoch = position.epoch();
        TopicPartition partition = epochs.partition(epoch);
        Long current = done.get(epoch);
        if (partition == null || current == null) {
            gaps.add(new RecoveryPlan.Gap(epoch, position.seq() + 1, -1, RecoveryPlan.GAP_UNKNOWN_EPOCH));
            return;
        }
        if (position.seq() >= current) {
            if (position.seq() > current) {
                ahead.add(position);
            }
            return;
        }
        List<EncodedMessage> fromCache = prefix
                ? cache.prefix(EndpointTable.prefixOf(pattern), epoch, position.seq(), current)
                : cache.exact(pattern, epoch, position.seq(), current);
        if (fromCache != null) {
            metrics.recovery("cache");
            cached.addAll(fromCache);
            return;
        }
        long from = position.seq() + 1;
        long max = recoveryConfig.kafkaMaxRecords();
        if (current - from + 1 > max) {
            long newFrom = current - max + 1;
            gaps.add(new RecoveryPlan.Gap(epoch, from, newFrom - 1, RecoveryPlan.GAP_TOO_FAR_BEHIND));
            from = newFrom;
        }
        if (from <= current) {
            metrics.recovery("kafka");
            reads.add(new RecoveryPlan.LogRead(epoch, partition, from, current));
        }
    }

    /** Where this node is in every partition the pattern covers. */
    private List<Position> positions(String pattern) {
        Set<String> covered = new LinkedHashSet<>();
        for (EndpointTable.Cover cover : table.cover(pattern)) {
            int count = epochs.partitionCount(cover.topic());
            if (count == 0) {
                continue;
            }
            if (cover.exact()) {
                // The partition the default partitioner puts this key in; a custom partitioner's partitions show
                // up in the messages' own epochs instead.
                byte[] key = cover.key().getBytes(StandardCharsets.UTF_8);
                covered.add(epochs.epoch(new TopicPartition(cover.topic(), Utils.toPositive(Utils.murmur2(key)) % count)));
            }
            else {
                covered.addAll(epochs.epochsOf(cover.topic()));
            }
        }
        List<Position> positions = new ArrayList<>();
        for (String epoch : covered) {
            Long current = done.get(epoch);
            if (epoch != null && current != null) {
                positions.add(new Position(epoch, current));
            }
        }
        return positions;
    }

    public void unsubscribe(Subscription subscription) {
        String pattern = subscription.pattern();
        Map<String, List<Subscription>> map = EndpointTable.isPrefix(pattern) ? prefixes : exact;
        String key = EndpointTable.prefixOf(pattern);
        lock.lock();
        try {
            List<Subscription> list = map.get(key);
            if (list != null && list.remove(subscription)) {
                leaveGroup(subscription);
                metrics.subscriptionRemoved();
                if (subscription.delta()) {
                    deltaSubscriptions--;
                }
                if (list.isEmpty()) {
                    map.remove(key);
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
            groups.values().forEach(retired::add);
            releaseRetiredGroups();
            cache.clear();
        }
        finally {
            lock.unlock();
        }
    }
}
