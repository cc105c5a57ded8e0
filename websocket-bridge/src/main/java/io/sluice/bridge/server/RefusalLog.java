package io.sluice.bridge.server;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import io.sluice.logging.RateLimitedLog;

/**
 * Refused connections, logged at most once per {@link RateLimitedLog#DEFAULT_INTERVAL} at WARN: under a flood every
 * refusal is counted in the metrics, and the log gets one line with the latest refusal and how many others there were
 * since the last line. One per listener, shared by the admission at accept and the upgrade guard.
 */
final class RefusalLog {

    private static final Logger LOG = LoggerFactory.getLogger(RefusalLog.class);

    private final RateLimitedLog log = new RateLimitedLog(LOG);

    /** @param address the client address as the bridge saw it (never a header's raw text) */
    void refused(String reason, Object address) {
        log.log("Refused a connection from {}: {} (sluice_bridge_connections_refused_total counts them all)", address, reason);
    }
}
