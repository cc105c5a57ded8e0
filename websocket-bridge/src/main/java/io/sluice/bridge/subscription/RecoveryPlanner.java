package io.sluice.bridge.subscription;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.utils.Utils;

import io.sluice.bridge.config.RecoveryConfig;
import io.sluice.bridge.kafka.PartitionEpochs;
import io.sluice.bridge.metrics.BridgeMetrics;
import io.sluice.bridge.protocol.ClientRequest.Position;
import io.sluice.bridge.protocol.EncodedMessage;
import io.sluice.bridge.recovery.RecoveryCache;
import io.sluice.bridge.recovery.RecoveryPlan;

/**
 * How a new subscription catches up. In: where the reader is in each partition (what it has handed to the live stream)
 * and the recovery cache; a subscription's pattern with its recover positions or snapshot wish. Out: its
 * {@link RecoveryPlan}: cached messages, Kafka log ranges, gaps, the positions it is ahead of this node, and this node's
 * position in each partition the pattern covers. It exists so that the plan is decided from one consistent view of
 * the stream: everything up to a position is in the plan, everything after it in the live stream.
 *
 * <p>Not thread-safe: the hub calls it under its lock only, the same lock that appends live messages to the cache.
 */
final class RecoveryPlanner {

    private final EndpointTable table;
    private final PartitionEpochs epochs;
    private final RecoveryConfig config;
    private final RecoveryCache cache;
    private final BridgeMetrics metrics;
    // Per epoch, the offset of the last record handed to the live stream.
    private final Map<String, Long> done = new HashMap<>();

    RecoveryPlanner(EndpointTable table, PartitionEpochs epochs, RecoveryConfig config, RecoveryCache cache, BridgeMetrics metrics) {
        this.table = table;
        this.epochs = epochs;
        this.config = config;
        this.cache = cache;
        this.metrics = metrics;
    }

    /** The reader starts the partition at {@code offset}. */
    void started(String epoch, long offset) {
        cache.started(epoch, offset);
        done.put(epoch, offset - 1);
    }

    /** Everything before {@code position} in the partition has been handed to the live stream. */
    void passed(String epoch, long position) {
        done.put(epoch, position - 1);
    }

    /**
     * The catch-up of a subscription joining now: from {@code recover} positions when given, else the latest cached
     * message of each endpoint when {@code snapshot}. Cached messages in it are retained for the subscriber.
     */
    RecoveryPlan plan(String pattern, List<Position> recover, boolean snapshot) {
        boolean prefix = EndpointTable.isPrefix(pattern);
        List<RecoveryPlan.LogRead> reads = new ArrayList<>();
        List<RecoveryPlan.Gap> gaps = new ArrayList<>();
        List<EncodedMessage> cached = new ArrayList<>();
        List<Position> ahead = new ArrayList<>();
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
        long max = config.kafkaMaxRecords();
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
}
