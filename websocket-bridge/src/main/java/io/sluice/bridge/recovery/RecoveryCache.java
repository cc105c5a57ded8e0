package io.sluice.bridge.recovery;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import io.sluice.bridge.config.RecoveryConfig;
import io.sluice.bridge.protocol.EncodedMessage;

/**
 * The in-memory history of every endpoint, bounded by messages per endpoint, age, and number of endpoints. Answers
 * the one question recovery asks: does this node still hold every message after offset {@code seq} of a partition,
 * for these endpoints? If so it hands them over; if not, the caller reads the Kafka log instead.
 *
 * <p>Completeness is tracked per partition ({@code epoch}) with a floor: the cache holds everything at or above it.
 * The floor starts where the reader started and rises when the cache drops whole endpoints or, for prefix
 * subscriptions, any message of the partition. An exact endpoint also has its own eviction mark, so a busy key
 * evicting its old messages does not cost a quiet key of the same partition its history.
 *
 * <p>Not thread-safe: guarded by the hub's lock (the reader appends, subscribers read under that lock).
 */
public final class RecoveryCache {

    private static final class PartitionFloor {
        long readerStart;
        long droppedUpTo = -1;
        long anyEvictedUpTo = -1;

        long exactFloor() {
            return Math.max(readerStart, droppedUpTo + 1);
        }

        long prefixFloor() {
            return Math.max(exactFloor(), anyEvictedUpTo + 1);
        }
    }

    private final RecoveryConfig config;
    // Insertion order is refreshed on every append, so the first entry is the least recently updated endpoint.
    private final LinkedHashMap<String, EndpointCache> endpoints = new LinkedHashMap<>();
    private final Map<String, PartitionFloor> floors = new HashMap<>();

    public RecoveryCache(RecoveryConfig config) {
        this.config = config;
    }

    /** The reader starts reading a partition at {@code offset}; nothing before it is cached. */
    public void started(String epoch, long offset) {
        floors.computeIfAbsent(epoch, e -> new PartitionFloor()).readerStart = offset;
    }

    /** Takes over the caller's reference to {@code message}. */
    public void append(EncodedMessage message, long nowNanos) {
        EndpointCache cache = endpoints.remove(message.endpoint());
        if (cache != null && !cache.epoch().equals(message.epoch())) {
            // The endpoint's records moved partition (or the topic was recreated): its old history is a different stream.
            drop(cache);
            cache = null;
        }
        if (cache == null) {
            cache = new EndpointCache(message.endpoint(), message.epoch());
        }
        else {
            EncodedMessage previous = cache.last();
            if (previous != null) {
                // Only the latest message's parsed JSON is needed, as the base of the next delta.
                previous.dropJson();
            }
        }
        endpoints.put(message.endpoint(), cache);
        long evicted = cache.append(message, nowNanos, config.cacheMessagesPerEndpoint());
        if (evicted >= 0) {
            floor(message.epoch()).anyEvictedUpTo = Math.max(floor(message.epoch()).anyEvictedUpTo, evicted);
        }
        while (endpoints.size() > config.cacheMaxEndpoints()) {
            Iterator<EndpointCache> oldest = endpoints.values().iterator();
            EndpointCache dropped = oldest.next();
            oldest.remove();
            drop(dropped);
        }
    }

    /** Age-based eviction across all endpoints. */
    public void expire(long nowNanos) {
        long cutoff = nowNanos - config.cacheMaxAge().toNanos();
        Iterator<EndpointCache> it = endpoints.values().iterator();
        while (it.hasNext()) {
            EndpointCache cache = it.next();
            long evicted = cache.expire(cutoff);
            if (evicted >= 0) {
                PartitionFloor floor = floor(cache.epoch());
                floor.anyEvictedUpTo = Math.max(floor.anyEvictedUpTo, evicted);
            }
            if (cache.isEmpty()) {
                it.remove();
                drop(cache);
            }
        }
    }

    private void drop(EndpointCache cache) {
        long highest = Math.max(cache.clear(), cache.evictedUpTo());
        PartitionFloor floor = floor(cache.epoch());
        floor.droppedUpTo = Math.max(floor.droppedUpTo, highest);
    }

    private PartitionFloor floor(String epoch) {
        return floors.computeIfAbsent(epoch, e -> new PartitionFloor());
    }

    /** The latest cached message of an endpoint, or null. Not retained: retain it to keep it past the lock. */
    public EncodedMessage latest(String endpoint) {
        EndpointCache cache = endpoints.get(endpoint);
        return cache == null ? null : cache.last();
    }

    /** The latest cached message of every endpoint under {@code prefix}, retained for the caller. */
    public List<EncodedMessage> latestUnder(String prefix) {
        List<EncodedMessage> latest = new ArrayList<>();
        for (EndpointCache cache : endpoints.values()) {
            if (cache.endpoint().startsWith(prefix) && cache.last() != null) {
                latest.add(cache.last().retain());
            }
        }
        return latest;
    }

    /**
     * Every message of {@code endpoint} in partition {@code epoch} with an offset in {@code (after, upTo]}, retained for
     * the caller, or null when the cache may be missing some of them.
     */
    public List<EncodedMessage> exact(String endpoint, String epoch, long after, long upTo) {
        PartitionFloor floor = floors.get(epoch);
        if (floor == null) {
            return null;
        }
        EndpointCache cache = endpoints.get(endpoint);
        long from = after + 1;
        long endpointFloor = cache != null && cache.epoch().equals(epoch) ? cache.evictedUpTo() + 1 : 0;
        if (from < Math.max(floor.exactFloor(), endpointFloor)) {
            return null;
        }
        List<EncodedMessage> found = new ArrayList<>();
        if (cache != null && cache.epoch().equals(epoch)) {
            collect(cache, after, upTo, found);
        }
        return found;
    }

    /** As {@link #exact} for every endpoint under {@code prefix}, ordered by offset. */
    public List<EncodedMessage> prefix(String prefix, String epoch, long after, long upTo) {
        PartitionFloor floor = floors.get(epoch);
        if (floor == null || after + 1 < floor.prefixFloor()) {
            return null;
        }
        List<EncodedMessage> found = new ArrayList<>();
        for (EndpointCache cache : endpoints.values()) {
            if (cache.epoch().equals(epoch) && cache.endpoint().startsWith(prefix)) {
                collect(cache, after, upTo, found);
            }
        }
        found.sort(Comparator.comparingLong(EncodedMessage::seq));
        return found;
    }

    private static void collect(EndpointCache cache, long after, long upTo, List<EncodedMessage> into) {
        for (Iterator<EncodedMessage> it = cache.messages(); it.hasNext(); ) {
            EncodedMessage m = it.next();
            if (m.seq() > after && m.seq() <= upTo) {
                into.add(m.retain());
            }
        }
    }

    public int endpointCount() {
        return endpoints.size();
    }

    public void clear() {
        endpoints.values().forEach(EndpointCache::clear);
        endpoints.clear();
    }
}
