package io.sluice.proxy.logging;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicLong;

import org.slf4j.Logger;

/**
 * A warning that any client can trigger (a refused connection, an unauthenticated client closed) must not let
 * a flood of such clients flood the log too: this logs at most one line per interval and says how many it
 * left out since the last one. Thread-safe; one instance per kind of event.
 */
public final class RateLimitedLog {

    public static final Duration DEFAULT_INTERVAL = Duration.ofSeconds(10);

    private final Logger logger;
    private final long intervalNanos;
    private final AtomicLong nextNanos;
    private final AtomicLong suppressed = new AtomicLong();

    public RateLimitedLog(Logger logger, Duration interval) {
        this.logger = logger;
        this.intervalNanos = interval.toNanos();
        this.nextNanos = new AtomicLong(System.nanoTime());
    }

    public RateLimitedLog(Logger logger) {
        this(logger, DEFAULT_INTERVAL);
    }

    /** Logs {@code format} at WARN unless a line was logged less than an interval ago. */
    public void warn(String format, Object... args) {
        long now = System.nanoTime();
        long next = nextNanos.get();
        if (now - next < 0 || !nextNanos.compareAndSet(next, now + intervalNanos)) {
            suppressed.incrementAndGet();
            return;
        }
        long left = suppressed.getAndSet(0);
        if (logger.isWarnEnabled()) {
            logger.warn(left == 0 ? format : format + " (" + left + " more like this since the last such line)", args);
        }
    }
}
