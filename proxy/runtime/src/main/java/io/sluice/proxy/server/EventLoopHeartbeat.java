package io.sluice.proxy.server;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.atomic.AtomicLongArray;

import io.netty.util.concurrent.EventExecutor;
import io.netty.util.concurrent.EventExecutorGroup;

/**
 * Liveness ({@code /healthz}): every event loop runs a small task within {@code stall} of it being sent. A loop stuck
 * in a blocking call or a spinning filter serves none of its connections, and only a restart frees it. Beats are sent
 * from a scheduler ({@link #beat}); {@link #live} only reads, so the probe itself never waits on a loop. A loop is
 * judged by the beat it has not answered, not by when the last beat was sent, so a late scheduler cannot fail it.
 */
final class EventLoopHeartbeat {

    private static final long NONE = Long.MIN_VALUE;

    private final List<EventExecutor> loops = new ArrayList<>();
    private final long stallNanos;
    /** Per loop: when the beat it has not run yet was sent, or NONE. */
    private final AtomicLongArray unansweredSince;

    EventLoopHeartbeat(EventExecutorGroup group, Duration stall) {
        group.forEach(loops::add);
        this.stallNanos = stall.toNanos();
        this.unansweredSince = new AtomicLongArray(loops.size());
        for (int i = 0; i < loops.size(); i++) {
            unansweredSince.set(i, NONE);
        }
    }

    /** Sends a beat to every loop that has answered its last one; any thread. */
    void beat() {
        for (int i = 0; i < loops.size(); i++) {
            int loop = i;
            if (unansweredSince.compareAndSet(loop, NONE, System.nanoTime())) {
                try {
                    loops.get(loop).execute(() -> unansweredSince.set(loop, NONE));
                } catch (RejectedExecutionException e) {
                    // Shutting down: the loop is meant to stop.
                    unansweredSince.set(loop, NONE);
                }
            }
        }
    }

    /** Whether every loop ran its last beat, or has had it for less than the stall time. */
    boolean live() {
        long now = System.nanoTime();
        for (int i = 0; i < loops.size(); i++) {
            long since = unansweredSince.get(i);
            if (since != NONE && now - since > stallNanos) {
                return false;
            }
        }
        return true;
    }
}
