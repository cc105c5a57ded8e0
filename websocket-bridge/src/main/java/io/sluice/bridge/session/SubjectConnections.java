package io.sluice.bridge.session;

import java.util.concurrent.ConcurrentHashMap;

/**
 * How many authenticated sessions (WebSocket or SSE) each token subject holds on this node, bounded by
 * {@code connections.maxConnectionsPerSubject}: a stolen or leaked token cannot take the node's connection budget,
 * which the per-address limits do not stop when it is used from many addresses. Counted per node, as every limit of a
 * node is: nodes share nothing.
 */
public final class SubjectConnections {

    private final int max;
    // Only subjects holding at least one session: an entry is removed with its last session.
    private final ConcurrentHashMap<String, Integer> held = new ConcurrentHashMap<>();

    /** @param max sessions per subject; 0 or less: no limit, and nothing is tracked */
    public SubjectConnections(int max) {
        this.max = max;
    }

    public int max() {
        return max;
    }

    /** Takes a place for {@code subject}; false when it already holds {@code max}. Give it back with {@link #release}. */
    boolean acquire(String subject) {
        if (max <= 0) {
            return true;
        }
        boolean[] taken = {false};
        held.compute(subject, (s, n) -> {
            int now = n == null ? 0 : n;
            if (now >= max) {
                return n;
            }
            taken[0] = true;
            return now + 1;
        });
        return taken[0];
    }

    void release(String subject) {
        if (max > 0) {
            held.computeIfPresent(subject, (s, n) -> n <= 1 ? null : n - 1);
        }
    }

    /** Subjects holding at least one place. */
    int tracked() {
        return held.size();
    }

    /** Sessions {@code subject} holds (for tests and diagnostics). */
    int held(String subject) {
        return held.getOrDefault(subject, 0);
    }
}
