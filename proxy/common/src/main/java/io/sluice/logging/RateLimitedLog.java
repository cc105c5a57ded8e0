package io.sluice.logging;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicLong;

import org.slf4j.Logger;
import org.slf4j.event.Level;

/**
 * A line that any client can trigger (a refused connection or request, an unauthenticated client closed, unreadable
 * records) must not let a flood of such clients flood the log too: this logs at most one line per interval and says
 * how many it left out since the last one. The one home for such lines in the proxy, the filters and the bridge.
 * Thread-safe; one instance per kind of event.
 */
public final class RateLimitedLog {

    public static final Duration DEFAULT_INTERVAL = Duration.ofSeconds(10);

    private final Logger logger;
    private final Level level;
    private final long intervalNanos;
    private final AtomicLong nextNanos;
    private final AtomicLong suppressed = new AtomicLong();

    /** @param level the level of every line; the first one is logged at once */
    public RateLimitedLog(Logger logger, Level level, Duration interval) {
        if (interval.isNegative()) {
            throw new IllegalArgumentException("interval: must not be negative");
        }
        this.logger = logger;
        this.level = level;
        this.intervalNanos = interval.toNanos();
        this.nextNanos = new AtomicLong(System.nanoTime());
    }

    /** Lines at WARN. */
    public RateLimitedLog(Logger logger, Duration interval) {
        this(logger, Level.WARN, interval);
    }

    /** Lines at WARN, at most one per {@link #DEFAULT_INTERVAL}. */
    public RateLimitedLog(Logger logger) {
        this(logger, DEFAULT_INTERVAL);
    }

    /**
     * Logs {@code format} (SLF4J placeholders) at this log's level unless a line was logged less than an interval
     * ago; the next line logged says how many were left out.
     */
    public void log(String format, Object... args) {
        long now = System.nanoTime();
        long next = nextNanos.get();
        if (now - next < 0 || !nextNanos.compareAndSet(next, now + intervalNanos)) {
            suppressed.incrementAndGet();
            return;
        }
        long left = suppressed.getAndSet(0);
        if (logger.isEnabledForLevel(level)) {
            logger.atLevel(level).log(left == 0 ? format : format + " (" + left + " more like this since the last such line)", args);
        }
    }
}
