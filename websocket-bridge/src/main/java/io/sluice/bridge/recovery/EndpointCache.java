package io.sluice.bridge.recovery;

import java.util.ArrayDeque;
import java.util.Iterator;

import io.sluice.bridge.protocol.EncodedMessage;

/**
 * The latest messages of one endpoint, oldest first, as the very frames that were sent live. Complete from
 * {@link #evictedUpTo()} + 1: every message of the endpoint after that offset that this node has read is here.
 * Guarded by the hub's lock, like the {@link RecoveryCache} that owns it.
 */
final class EndpointCache {

    private record Entry(EncodedMessage message, long receivedNanos) {
    }

    private final String endpoint;
    private final String epoch;
    private final ArrayDeque<Entry> entries = new ArrayDeque<>();
    private long evictedUpTo = -1;

    EndpointCache(String endpoint, String epoch) {
        this.endpoint = endpoint;
        this.epoch = epoch;
    }

    String endpoint() {
        return endpoint;
    }

    String epoch() {
        return epoch;
    }

    /** Takes over the caller's reference; returns the offset evicted to make room, or -1. */
    long append(EncodedMessage message, long nowNanos, int maxMessages) {
        entries.addLast(new Entry(message, nowNanos));
        long evicted = -1;
        while (entries.size() > maxMessages) {
            evicted = evictFirst();
        }
        return evicted;
    }

    /** Drops messages received before {@code cutoffNanos}; returns the highest offset dropped, or -1. */
    long expire(long cutoffNanos) {
        long evicted = -1;
        while (!entries.isEmpty() && entries.peekFirst().receivedNanos() - cutoffNanos < 0) {
            evicted = evictFirst();
        }
        return evicted;
    }

    private long evictFirst() {
        Entry first = entries.removeFirst();
        evictedUpTo = Math.max(evictedUpTo, first.message().seq());
        first.message().release();
        return first.message().seq();
    }

    /** The highest offset no longer cached, or -1 if nothing was evicted. */
    long evictedUpTo() {
        return evictedUpTo;
    }

    EncodedMessage last() {
        Entry last = entries.peekLast();
        return last == null ? null : last.message();
    }

    long lastSeq() {
        Entry last = entries.peekLast();
        return last == null ? -1 : last.message().seq();
    }

    boolean isEmpty() {
        return entries.isEmpty();
    }

    Iterator<EncodedMessage> messages() {
        Iterator<Entry> it = entries.iterator();
        return new Iterator<>() {
            @Override
            public boolean hasNext() {
                return it.hasNext();
            }

            @Override
            public EncodedMessage next() {
                return it.next().message();
            }
        };
    }

    /** Releases everything; returns the highest offset that was held, or -1. */
    long clear() {
        long highest = lastSeq();
        while (!entries.isEmpty()) {
            evictFirst();
        }
        return highest;
    }
}
