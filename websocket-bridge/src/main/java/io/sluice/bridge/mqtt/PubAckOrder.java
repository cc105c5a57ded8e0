package io.sluice.bridge.mqtt;

import java.util.ArrayDeque;
import java.util.function.Consumer;

/**
 * PUBACKs in the order their PUBLISHes arrived, as MQTT requires (3.1.1, 4.6; 5.0, 4.6), although Kafka answers
 * publishes to different partitions in any order. In: each QoS 1 publish when it is handed on, and its outcome later;
 * out: the reason codes, from the oldest, as soon as every publish before them has its own. Holds at most as many
 * entries as the connection has publishes in flight ({@code requests.publishesInFlight}). Event loop only.
 */
final class PubAckOrder {

    /** One QoS 1 publish waiting for Kafka; {@code reason} is set once it is answered. */
    static final class Entry {
        final int packetId;
        int reason = -1;

        private Entry(int packetId) {
            this.packetId = packetId;
        }
    }

    private final ArrayDeque<Entry> entries = new ArrayDeque<>();
    private final Consumer<Entry> send;

    /** @param send writes one PUBACK (the entry's packet id and reason code) */
    PubAckOrder(Consumer<Entry> send) {
        this.send = send;
    }

    Entry add(int packetId) {
        Entry entry = new Entry(packetId);
        entries.add(entry);
        return entry;
    }

    /** The entry's publish was answered with {@code reason}: what can go now, goes. */
    void answered(Entry entry, int reason) {
        entry.reason = reason;
        while (!entries.isEmpty() && entries.peek().reason >= 0) {
            send.accept(entries.poll());
        }
    }

    /** Takes back the entry just added: its publish was refused before it was handed on. */
    void removeLast() {
        entries.pollLast();
    }

    void clear() {
        entries.clear();
    }
}
