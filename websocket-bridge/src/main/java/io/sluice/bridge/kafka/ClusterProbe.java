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
 *
 * <p>The line and readiness read one clock: the age of the last answer, judged by {@link #sinceLastAnswer} (what
 * readiness asks) and by {@link #maybeAsk} (the reader's loop), whichever sees it pass the limit first. It used to wait
 * for a question to fail, which comes up to a question's timeout later: readiness said "Kafka has not answered" while
 * the log said nothing yet, so an operator (or a test) looking at a 503 could not find why in the log.
 */
final class ClusterProbe {

    private static final Logger LOG = LoggerFactory.getLogger(ClusterProbe.class);
    static final Duration EVERY = Duration.ofSeconds(1);

    private final Admin admin;
    private final int timeoutMs;
    private final long silentLimitNanos;
    private final long startNanos = System.nanoTime();
    private final AtomicBoolean asking = new AtomicBoolean();
    // Written by the answers' callbacks, read by readiness and the reader: guarded by this.
    private long lastAnswerNanos;
    private boolean answered;
    private boolean saidLost;
    private Throwable lastFailure;
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
        judge(now);
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

    private synchronized void answered(long now) {
        if (saidLost) {
            saidLost = false;
            LOG.info("Kafka answers again after {} s without an answer; the node is ready again",
                    Duration.ofNanos(now - lastOrStart()).toSeconds());
        }
        lastAnswerNanos = now;
        answered = true;
        lastFailure = null;
    }

    private synchronized void unanswered(long now, Throwable error) {
        lastFailure = error;
        judge(now);
    }

    /** Says the cluster is lost once its silence passes the limit: the moment readiness starts saying so too. */
    private synchronized void judge(long now) {
        if (!saidLost && now - lastOrStart() > silentLimitNanos) {
            saidLost = true;
            Throwable failure = lastFailure;
            LOG.warn("Kafka has not answered for {} s ({}); the node reports not ready until it does",
                    Duration.ofNanos(now - lastOrStart()).toSeconds(),
                    failure == null ? "its question is still waiting for an answer"
                            : RateLimitedByCause.describe(RateLimitedByCause.rootCause(failure)));
        }
    }

    private long lastOrStart() {
        return answered ? lastAnswerNanos : startNanos;
    }

    /** How long ago the cluster last answered; null if it never did. */
    synchronized Duration sinceLastAnswer() {
        long now = System.nanoTime();
        judge(now);
        return answered ? Duration.ofNanos(now - lastAnswerNanos) : null;
    }
}
