package io.sluice.proxy.runtime;

import java.util.Map;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import io.netty.handler.codec.DecoderException;
import io.sluice.logging.RateLimitedLog;

/**
 * The lines logged when a client connection closes because of its broker (the broker could not be reached, or its
 * connection failed). A broker outage reaches every client connection, and every client reconnects again and again
 * while it lasts: one line per connection would flood the log with the same news. So this logs at most one line per
 * cause (what happened and the exception's class) per {@link RateLimitedLog#DEFAULT_INTERVAL}, each saying how many
 * were left out, and gives the cause's own message rather than the wrappers the futures put around it. One per virtual
 * cluster, so that one cluster's outage does not hide another's. Thread-safe.
 */
public final class BrokerTroubleLog {

    private static final Logger LOG = LoggerFactory.getLogger(ProxyConnection.class);

    private final String virtualCluster;
    // Keyed by a fixed text from the code and an exception class: bounded by the code, not by what the network sends.
    private final Map<String, RateLimitedLog> byCause = new ConcurrentHashMap<>();

    public BrokerTroubleLog(String virtualCluster) {
        this.virtualCluster = virtualCluster;
    }

    /** Logs (rate-limited) that {@code connection} closes because {@code what} happened, for {@code error}. */
    void closing(ProxyConnection connection, String what, Throwable error) {
        Throwable cause = withoutWrappers(error);
        String message = cause.getMessage() != null ? cause.getMessage() : cause.getClass().getSimpleName();
        byCause.computeIfAbsent(what + "|" + cause.getClass().getName(), key -> new RateLimitedLog(LOG))
                .log("virtual cluster {}: closing client connection {}: {}: {}", virtualCluster, connection.descriptor(), what, message);
    }

    /** The exception under the futures' and the decoder's wrappers, whose own messages only repeat it. */
    static Throwable withoutWrappers(Throwable error) {
        Throwable cause = error;
        while ((cause instanceof CompletionException || cause instanceof ExecutionException || cause instanceof DecoderException)
                && cause.getCause() != null) {
            cause = cause.getCause();
        }
        return cause;
    }
}
