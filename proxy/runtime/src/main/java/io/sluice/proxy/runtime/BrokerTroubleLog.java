package io.sluice.proxy.runtime;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import io.sluice.logging.RateLimitedByCause;

/**
 * The lines logged when a client connection closes because of its broker (the broker could not be reached, or its
 * connection failed). A broker outage reaches every client connection, and every client reconnects again and again
 * while it lasts: one line per connection would flood the log with the same news. So this logs at most one line per
 * cause (what happened, and the root cause's class: {@link RateLimitedByCause}) per interval, and gives the root
 * cause's own message rather than the wrappers the futures put around it. One per virtual cluster, so that one
 * cluster's outage does not hide another's. Thread-safe.
 */
public final class BrokerTroubleLog {

    private static final Logger LOG = LoggerFactory.getLogger(ProxyConnection.class);

    private final String virtualCluster;
    // Keyed by a fixed text from the code: bounded by the code, not by what the network sends.
    private final Map<String, RateLimitedByCause> byWhat = new ConcurrentHashMap<>();

    public BrokerTroubleLog(String virtualCluster) {
        this.virtualCluster = virtualCluster;
    }

    /** Logs (rate-limited) that {@code connection} closes because {@code what} happened, for {@code error}. */
    void closing(ProxyConnection connection, String what, Throwable error) {
        Throwable cause = RateLimitedByCause.rootCause(error);
        String message = cause.getMessage() != null ? cause.getMessage() : cause.getClass().getSimpleName();
        byWhat.computeIfAbsent(what, key -> new RateLimitedByCause(LOG))
                .log(cause, "virtual cluster {}: closing client connection {}: {}: {}", virtualCluster, connection.descriptor(), what, message);
    }
}
