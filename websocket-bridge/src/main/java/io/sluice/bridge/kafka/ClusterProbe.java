package io.sluice.bridge.kafka;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicBoolean;

import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.DescribeClusterOptions;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import io.sluice.logging.RateLimitedByCause;

/**
 * Whether the Kafka cluster answers now, for the node's readiness. A group-less consumer says nothing when its
 * brokers are gone: {@code poll} just returns no records, as it does on a quiet topic. So the reader asks the cluster
 * a tiny question (DescribeCluster) once per {@link #EVERY}, never waiting for the answer, at most one question at a
 * time; readiness only reads when the last answer came. Nothing here blocks the reader or the management threads.
 *
 * <p>It is also the node's one voice about an outage: a line when the cluster has not answered for as long as
 * readiness allows, and one when it answers again. kafka-clients' own per-reconnect warnings are turned down in the
 * shipped logging configuration, because they repeat every second for as long as the outage lasts.
 */
final class ClusterProbe {

    private static final Logger LOG = LoggerFactory.getLogger(ClusterProbe.class);
    static final Duration EVERY = Duration.ofSeconds(1);

    private final Admin admin;
    private final int timeoutMs;
    private final long silentLimitNanos;
    private final long startNanos = System.nanoTime();
    private final AtomicBoolean asking = new AtomicBoolean();
    private volatile long lastAnswerNanos;
    private volatile boolean answered;
    // Only touched in the answers' callbacks, which never overlap (one question at a time).
    private boolean saidLost;
    // Only touched on the reader thread.
    private long nextNanos = System.nanoTime();

    /**
     * @param timeout how long one question may wait for its answer; a lost one is asked again after that
     * @param silentLimit how long the cluster may stay silent before the node says it has lost it (readiness's limit)
     */
    ClusterProbe(Admin admin, Duration timeout, Duration silentLimit) {
        this.admin = admin;
        this.timeoutMs = (int) Math.min(Integer.MAX_VALUE, timeout.toMillis());
        this.silentLimitNanos = silentLimit.toNanos();
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
                    answered(System.nanoTime());
                } else {
                    unanswered(System.nanoTime(), error);
                }
                asking.set(false);
            });
        }
        catch (RuntimeException e) {
            // The admin client is closing: the reader is stopping.
            asking.set(false);
        }
    }

    private void answered(long now) {
        if (saidLost) {
            saidLost = false;
            LOG.info("Kafka answers again after {} s without an answer; the node is ready again",
                    Duration.ofNanos(now - lastOrStart()).toSeconds());
        }
        lastAnswerNanos = now;
        answered = true;
    }

    private void unanswered(long now, Throwable error) {
        if (!saidLost && now - lastOrStart() > silentLimitNanos) {
            saidLost = true;
            LOG.warn("Kafka has not answered for {} s ({}); the node reports not ready until it does",
                    Duration.ofNanos(now - lastOrStart()).toSeconds(), RateLimitedByCause.describe(RateLimitedByCause.rootCause(error)));
        }
    }

    private long lastOrStart() {
        return answered ? lastAnswerNanos : startNanos;
    }

    /** How long ago the cluster last answered; null if it never did. */
    Duration sinceLastAnswer() {
        return answered ? Duration.ofNanos(System.nanoTime() - lastAnswerNanos) : null;
    }
}
