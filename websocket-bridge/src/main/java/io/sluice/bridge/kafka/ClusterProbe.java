package io.sluice.bridge.kafka;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicBoolean;

import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.DescribeClusterOptions;

/**
 * Whether the Kafka cluster answers now, for the node's readiness. A group-less consumer says nothing when its
 * brokers are gone: {@code poll} just returns no records, as it does on a quiet topic. So the reader asks the cluster
 * a tiny question (DescribeCluster) once per {@link #EVERY}, never waiting for the answer, at most one question at a
 * time; readiness only reads when the last answer came. Nothing here blocks the reader or the management threads.
 */
final class ClusterProbe {

    static final Duration EVERY = Duration.ofSeconds(1);

    private final Admin admin;
    private final int timeoutMs;
    private final AtomicBoolean asking = new AtomicBoolean();
    private volatile long lastAnswerNanos;
    private volatile boolean answered;
    // Only touched on the reader thread.
    private long nextNanos = System.nanoTime();

    /** @param timeout how long one question may wait for its answer; a lost one is asked again after that */
    ClusterProbe(Admin admin, Duration timeout) {
        this.admin = admin;
        this.timeoutMs = (int) Math.min(Integer.MAX_VALUE, timeout.toMillis());
    }

    /** Asks the cluster if a second has passed and no question is waiting for its answer. Returns at once. */
    void maybeAsk() {
        long now = System.nanoTime();
        if (now - nextNanos < 0 || !asking.compareAndSet(false, true)) {
            return;
        }
        nextNanos = now + EVERY.toNanos();
        try {
            admin.describeCluster(new DescribeClusterOptions().timeoutMs(timeoutMs)).clusterId().whenComplete((id, error) -> {
                if (error == null) {
                    lastAnswerNanos = System.nanoTime();
                    answered = true;
                }
                asking.set(false);
            });
        }
        catch (RuntimeException e) {
            // The admin client is closing: the reader is stopping.
            asking.set(false);
        }
    }

    /** How long ago the cluster last answered; null if it never did. */
    Duration sinceLastAnswer() {
        return answered ? Duration.ofNanos(System.nanoTime() - lastAnswerNanos) : null;
    }
}
