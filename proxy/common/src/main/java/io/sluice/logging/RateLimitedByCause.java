package io.sluice.logging;

import java.time.Duration;
import java.util.Arrays;
import java.util.Map;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;

import org.slf4j.Logger;

import io.netty.handler.codec.DecoderException;

/**
 * Failures that repeat for as long as an outage lasts (every reconnecting client of a proxy whose broker is gone, every
 * bridge client's recovery read): at most one line per root cause and interval, each {@link RateLimitedLog} saying how
 * many it left out, so an outage costs a few lines, not one per client. The root cause is the exception under the
 * wrappers futures and decoders put around it ({@link CompletionException}, {@link ExecutionException},
 * {@link DecoderException}), whose own messages only repeat it. The one home for such lines in the proxy and the
 * bridge. Thread-safe; one instance per kind of event.
 */
public final class RateLimitedByCause {

    /** Causes are exception classes, a handful in practice; past this many, the rest share one line. */
    static final int MAX_CAUSES = 32;
    private static final String OTHER = "other";

    private final Logger logger;
    private final Duration interval;
    private final Map<String, RateLimitedLog> byCause = new ConcurrentHashMap<>();

    /** Lines at WARN, at most one per cause per {@link RateLimitedLog#DEFAULT_INTERVAL}. */
    public RateLimitedByCause(Logger logger) {
        this(logger, RateLimitedLog.DEFAULT_INTERVAL);
    }

    public RateLimitedByCause(Logger logger, Duration interval) {
        this.logger = logger;
        this.interval = interval;
    }

    /** Logs {@code format} (SLF4J placeholders) unless a line for the same root cause was logged within the interval. */
    public void log(Throwable failure, String format, Object... args) {
        String key = rootCause(failure).getClass().getName();
        RateLimitedLog log = byCause.get(key);
        if (log == null) {
            log = byCause.size() < MAX_CAUSES
                    ? byCause.computeIfAbsent(key, k -> new RateLimitedLog(logger, interval))
                    : byCause.computeIfAbsent(OTHER, k -> new RateLimitedLog(logger, interval));
        }
        log.log(format, args);
    }

    /** As {@link #log}, ending the line with {@code ": <root cause's simple name>: <its message>"}. */
    public void logWithCause(Throwable failure, String what, Object... args) {
        Object[] withCause = Arrays.copyOf(args, args.length + 1);
        withCause[args.length] = describe(rootCause(failure));
        log(failure, what + ": {}", withCause);
    }

    /** The failure under the wrappers that futures and decoders put around it. */
    public static Throwable rootCause(Throwable failure) {
        Throwable t = failure;
        while ((t instanceof CompletionException || t instanceof ExecutionException || t instanceof DecoderException)
                && t.getCause() != null) {
            t = t.getCause();
        }
        return t;
    }

    /** {@code SimpleName: message}, or the name alone when there is no message. */
    public static String describe(Throwable cause) {
        return cause.getMessage() == null ? cause.getClass().getSimpleName() : cause.getClass().getSimpleName() + ": " + cause.getMessage();
    }
}
