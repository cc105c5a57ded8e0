package io.sluice.bridge.session;

import java.net.SocketAddress;
import java.time.Duration;
import java.util.Map;
import java.util.function.Function;
import java.util.stream.Collectors;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.slf4j.event.Level;

import io.sluice.bridge.metrics.BridgeMetrics;
import io.sluice.logging.RateLimitedLog;

/**
 * Counts a request refused by a limit and logs it, at most one line per limit and minute with the number refused in
 * between: a client flooding the node must not flood its log too.
 */
final class Refusals {

    private static final Logger LOG = LoggerFactory.getLogger(Refusals.class);
    private static final Map<String, RateLimitedLog> LOGS = BridgeMetrics.REFUSALS.stream()
            .collect(Collectors.toUnmodifiableMap(Function.identity(), reason -> new RateLimitedLog(LOG, Level.INFO, Duration.ofMinutes(1))));

    private Refusals() {
    }

    /** @param reason one of {@link BridgeMetrics#REFUSALS} */
    static void refused(SessionServices services, String reason, SocketAddress client) {
        services.metrics().refused(reason);
        LOGS.get(reason).log("Refused a request of {} ({}); sluice_bridge_requests_refused_total counts them all", client, reason);
    }
}
