package io.sluice.bridge.server;

import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Refused connections, logged at most once per interval: under a flood every refusal is counted in the metrics, and
 * the log gets one line with the latest refusal and how many others there were since the last line.
 */
final class RefusalLog {

    private static final Logger LOG = LoggerFactory.getLogger(RefusalLog.class);
    private static final long INTERVAL_NANOS = TimeUnit.SECONDS.toNanos(10);

    private final AtomicLong nextLineAt = new AtomicLong(System.nanoTime());
    private final AtomicLong unlogged = new AtomicLong();

    /** @param address the client address as the bridge saw it (never a header's raw text) */
    void refused(String reason, Object address) {
        long now = System.nanoTime();
        long next = nextLineAt.get();
        if (now - next < 0 || !nextLineAt.compareAndSet(next, now + INTERVAL_NANOS)) {
            unlogged.incrementAndGet();
            return;
        }
        long others = unlogged.getAndSet(0);
        LOG.warn("Refused a connection from {}: {}{}", address, reason,
                others == 0 ? "" : " (and " + others + " other refusals since the last such line; see sluice_bridge_connections_refused_total)");
    }
}
