package io.sluice.bench.bridge;

import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * One client of the failover scenario, across all its connections: the endpoint it follows, its position per
 * partition (what it sends in {@code recover} when it subscribes again), every {@code seq} it was delivered in order,
 * and the moments the scenario measures. Its connections ({@link RecoveringConnection}) come one after another on
 * event-loop threads, so every method is synchronized.
 */
final class RecoveringClient {

    private final int index;
    private final int endpoint;
    /** The highest seq seen per epoch: from {@code subscribed} positions and from every message. */
    private final Map<String, Long> positions = new LinkedHashMap<>();
    /** Where the first subscription started, per epoch: the client is owed every record of its key after it. */
    private final Map<String, Long> firstPositions = new LinkedHashMap<>();
    private final Map<String, SeqLog> delivered = new LinkedHashMap<>();
    private String node;
    private boolean subscribed;
    private int gapEvents;
    private int connections;
    private int attempt;
    /** When the node it was on was stopped (nanoTime), if it was on it; 0 otherwise. */
    private long killedAt;
    private long disconnectedAt;
    private long resubscribedAt;

    RecoveringClient(int index, int endpoint) {
        this.index = index;
        this.endpoint = endpoint;
    }

    int index() {
        return index;
    }

    int endpoint() {
        return endpoint;
    }

    synchronized void connected(String node) {
        this.node = node;
        connections++;
    }

    /** The {@code recover} array of the next subscribe; null before the first subscription. */
    synchronized String recoverJson() {
        if (positions.isEmpty()) {
            return null;
        }
        StringBuilder json = new StringBuilder("[");
        positions.forEach((epoch, seq) -> json.append(json.length() > 1 ? "," : "").append("{\"epoch\":\"").append(epoch).append("\",\"seq\":").append(seq).append('}'));
        return json.append(']').toString();
    }

    /** A {@code subscribed} reply with the node's positions: kept where they are ahead of ours (recovery semantics). */
    synchronized void subscribed(Map<String, Long> nodePositions, long now) {
        boolean first = firstPositions.isEmpty();
        nodePositions.forEach((epoch, seq) -> {
            positions.merge(epoch, seq, Math::max);
            if (first) {
                firstPositions.put(epoch, seq);
            }
        });
        subscribed = true;
        attempt = 0;
        if (killedAt != 0 && resubscribedAt == 0) {
            resubscribedAt = now;
        }
    }

    synchronized void message(String epoch, long seq) {
        delivered.computeIfAbsent(epoch, e -> new SeqLog()).add(seq);
        positions.merge(epoch, seq, Math::max);
    }

    synchronized void gap() {
        gapEvents++;
    }

    /** The connection closed; returns the attempt number of the next try (1: the first retry). */
    synchronized int closed(long now) {
        if (subscribed && killedAt != 0 && disconnectedAt == 0) {
            disconnectedAt = now;
        }
        subscribed = false;
        node = null;
        return ++attempt;
    }

    /** Marks the client as one of the stopped node's, if it is on {@code stoppedNode}. */
    synchronized boolean markIfOn(String stoppedNode, long killTime) {
        if (stoppedNode.equals(node)) {
            killedAt = killTime;
            return true;
        }
        return false;
    }

    synchronized boolean isSubscribed() {
        return subscribed;
    }

    synchronized String node() {
        return node;
    }

    synchronized int gapEvents() {
        return gapEvents;
    }

    synchronized int connections() {
        return connections;
    }

    synchronized boolean affected() {
        return killedAt != 0;
    }

    /** Kill to subscribed again, in ns; -1 when it is not (yet). */
    synchronized long killToResubscribedNanos() {
        return killedAt == 0 || resubscribedAt == 0 ? -1 : resubscribedAt - killedAt;
    }

    /** Its connection closing to subscribed again, in ns; -1 when it is not (yet). */
    synchronized long disconnectToResubscribedNanos() {
        return disconnectedAt == 0 || resubscribedAt == 0 ? -1 : resubscribedAt - disconnectedAt;
    }

    /** Its highest seq in {@code partition} (of the one topic), or -1. */
    synchronized long position(int partition) {
        long best = -1;
        for (Map.Entry<String, Long> e : positions.entrySet()) {
            if (Epochs.partition(e.getKey()) == partition) {
                best = Math.max(best, e.getValue());
            }
        }
        return best;
    }

    /** Where its first subscription started in {@code partition}, or -1 when it named none. */
    synchronized long firstPosition(int partition) {
        for (Map.Entry<String, Long> e : firstPositions.entrySet()) {
            if (Epochs.partition(e.getKey()) == partition) {
                return e.getValue();
            }
        }
        return -1;
    }

    /** Every seq delivered in {@code partition}, in the order delivered. */
    synchronized long[] delivered(int partition) {
        long[] all = new long[0];
        for (Map.Entry<String, SeqLog> e : delivered.entrySet()) {
            if (Epochs.partition(e.getKey()) == partition) {
                long[] more = e.getValue().toArray();
                long[] joined = Arrays.copyOf(all, all.length + more.length);
                System.arraycopy(more, 0, joined, all.length, more.length);
                all = joined;
            }
        }
        return all;
    }

    /** The seqs of one epoch as delivered: a growing array, 8 bytes a message. */
    private static final class SeqLog {
        private long[] seqs = new long[16];
        private int size;

        void add(long seq) {
            if (size == seqs.length) {
                seqs = Arrays.copyOf(seqs, size * 2);
            }
            seqs[size++] = seq;
        }

        long[] toArray() {
            return Arrays.copyOf(seqs, size);
        }
    }
}
