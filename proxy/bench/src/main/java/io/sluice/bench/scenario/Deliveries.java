package io.sluice.bench.scenario;

import java.util.BitSet;

/**
 * Which numbered records a test sent, which the broker acknowledged and which a consumer received, so that a
 * recovery can be judged exactly: a record acknowledged and never received is lost, one received twice a duplicate.
 * Records carry their sequence number (see {@link KafScaleLoad}); thread-safe, as callbacks and consumers run apart.
 */
final class Deliveries {

    private final BitSet acknowledged = new BitSet();
    private final BitSet received = new BitSet();
    private long duplicates;
    private long receivedCount;

    synchronized void acknowledged(int sequence) {
        acknowledged.set(sequence);
    }

    /** @return false for a duplicate */
    synchronized boolean received(int sequence) {
        receivedCount++;
        if (received.get(sequence)) {
            duplicates++;
            return false;
        }
        received.set(sequence);
        return true;
    }

    synchronized long acknowledgedCount() {
        return acknowledged.cardinality();
    }

    synchronized long receivedCount() {
        return receivedCount;
    }

    synchronized long duplicates() {
        return duplicates;
    }

    /** Acknowledged by the broker, never received. */
    synchronized long lost() {
        BitSet missing = (BitSet) acknowledged.clone();
        missing.andNot(received);
        return missing.cardinality();
    }

    /** Whether every acknowledged record has been received (the test can stop waiting). */
    synchronized boolean allReceived() {
        return lost() == 0;
    }
}
