package io.sluice.bridge.kafka;

import java.time.Duration;
import java.util.Arrays;
import java.util.Map;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;

import org.slf4j.Logger;

import io.sluice.logging.RateLimitedLog;

/**
 * Kafka failures that repeat for as long as an outage lasts (every reconnecting client's recovery read, every
 * metadata refresh): at most one WARN per cause and {@link RateLimitedLog#DEFAULT_INTERVAL}, saying how many were left
 * out, so a broker outage costs a few lines, not one per client. The cause is the exception under the
 * {@link CompletionException} and {@link ExecutionException} wrappers that futures add, named with its message: the
 * wrappers' own messages only repeat it. Thread-safe; one instance per kind of event.
 */
public final class KafkaFailureLog {

    /** Causes are exception classes, a handful in practice; past this many, the rest share one line. */
    static final int MAX_CAUSES = 32;
    private static final String OTHER = "other";

    private final Logger logger;
    private final Duration interval;
    private final Map<String, RateLimitedLog> byCause = new ConcurrentHashMap<>();

    public KafkaFailureLog(Logger logger) {
        this(logger, RateLimitedLog.DEFAULT_INTERVAL);
    }

    KafkaFailureLog(Logger logger, Duration interval) {
        this.logger = logger;
        this.interval = interval;
    }

    /** Logs {@code "<what>: <cause>: <its message>"}, {@code what} with SLF4J placeholders filled from {@code args}. */
    public void warn(Throwable failure, String what, Object... args) {
        Throwable cause = unwrap(failure);
        String key = cause.getClass().getName();
        RateLimitedLog log = byCause.get(key);
        if (log == null) {
            log = byCause.size() < MAX_CAUSES
                    ? byCause.computeIfAbsent(key, k -> new RateLimitedLog(logger, interval))
                    : byCause.computeIfAbsent(OTHER, k -> new RateLimitedLog(logger, interval));
        }
        Object[] withCause = Arrays.copyOf(args, args.length + 1);
        withCause[args.length] = describe(cause);
        log.log(what + ": {}", withCause);
    }

    /** The failure under the wrappers that futures put around it. */
    public static Throwable unwrap(Throwable failure) {
        Throwable t = failure;
        while ((t instanceof CompletionException || t instanceof ExecutionException) && t.getCause() != null) {
            t = t.getCause();
        }
        return t;
    }

    /** {@code SimpleName: message}, or the name alone when there is no message. */
    public static String describe(Throwable cause) {
        return cause.getMessage() == null ? cause.getClass().getSimpleName() : cause.getClass().getSimpleName() + ": " + cause.getMessage();
    }
}
