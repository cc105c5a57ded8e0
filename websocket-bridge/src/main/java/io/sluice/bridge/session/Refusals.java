package io.sluice.bridge.session;

import java.net.SocketAddress;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Counts a request refused by a limit and logs it, at most one line per limit and minute with the number refused in
 * between: a client flooding the node must not flood its log too.
 */
final class Refusals {

    private static final Logger LOG = LoggerFactory.getLogger(Refusals.class);
    private static final long INTERVAL_NANOS = TimeUnit.MINUTES.toNanos(1);

    private static final class Window {
        final AtomicLong nextLineAt = new AtomicLong(System.nanoTime());
        final AtomicLong unlogged = new AtomicLong();
    }

    private static final Map<String, Window> WINDOWS = new ConcurrentHashMap<>();

    private Refusals() {
    }

    /** @param reason one of {@link io.sluice.bridge.metrics.BridgeMetrics#REFUSALS} */
    static void refused(SessionServices services, String reason, SocketAddress client) {
        services.metrics().refused(reason);
        Window window = WINDOWS.computeIfAbsent(reason, r -> new Window());
        long now = System.nanoTime();
        long due = window.nextLineAt.get();
        if (now - due >= 0 && window.nextLineAt.compareAndSet(due, now + INTERVAL_NANOS)) {
            long others = window.unlogged.getAndSet(0);
            LOG.info("Refused a request of {} ({}); {} more refused for this reason since the last such line"
                    + " (sluice_bridge_requests_refused_total counts them all)", client, reason, others);
        }
        else {
            window.unlogged.incrementAndGet();
        }
    }
}
