package io.sluice.proxy.server;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.time.Duration;
import java.util.List;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import io.sluice.config.HostPort;
import io.sluice.management.ManagementServer.Readiness;

/**
 * Whether one virtual cluster's target cluster can be reached now, for {@code /readyz}: readiness means "a new client
 * would be served", and a proxy whose brokers are gone cannot serve one. A background thread checks every
 * {@link #INTERVAL} (a discovery round where discovery runs: the cluster answered a Kafka request; otherwise a TCP
 * connect to a bootstrap server) and records the outcome here; the management server only reads it, so a probe never
 * waits on a broker. Ready while the newest check succeeded and is at most {@link #MAX_AGE} old: a failed check turns
 * it false at once, a checker that stopped checking turns it false by age. Thread-safe.
 */
final class UpstreamCheck {

    private static final Logger LOG = LoggerFactory.getLogger(UpstreamCheck.class);
    /** How often the target cluster is checked. */
    static final Duration INTERVAL = Duration.ofSeconds(5);
    /** How long a check may take: a discovery round's timeout, a TCP connect's. */
    static final Duration TIMEOUT = Duration.ofSeconds(5);
    /** Older than this, a success no longer counts: two intervals and a timeout, so one slow round is not an outage. */
    static final Duration MAX_AGE = INTERVAL.multipliedBy(2).plus(TIMEOUT);

    private record Outcome(boolean reached, long atNanos, String detail) {
    }

    private final String virtualCluster;
    private volatile Outcome last;

    UpstreamCheck(String virtualCluster) {
        this.virtualCluster = virtualCluster;
    }

    void reached(String detail) {
        Outcome previous = last;
        if (previous != null && !previous.reached()) {
            LOG.info("virtual cluster {}: target cluster reachable again ({})", virtualCluster, detail);
        }
        last = new Outcome(true, System.nanoTime(), detail);
    }

    void failed(String detail) {
        last = new Outcome(false, System.nanoTime(), detail);
    }

    Readiness readiness() {
        Outcome outcome = last;
        if (outcome == null) {
            return Readiness.notReady("target cluster not checked yet");
        }
        long ageMillis = Duration.ofNanos(System.nanoTime() - outcome.atNanos()).toMillis();
        if (!outcome.reached()) {
            return Readiness.notReady("target cluster unreachable " + ageMillis + " ms ago: " + outcome.detail());
        }
        if (ageMillis > MAX_AGE.toMillis()) {
            return Readiness.notReady("target cluster not checked for " + ageMillis + " ms (last: " + outcome.detail() + ")");
        }
        return Readiness.ready(outcome.detail() + " " + ageMillis + " ms ago");
    }

    /** The check for clusters without discovery (SASL-only passthrough): a bootstrap server accepts a TCP connection. */
    void probeTcp(List<HostPort> bootstrapServers) {
        for (HostPort server : bootstrapServers) {
            try (Socket socket = new Socket()) {
                socket.connect(new InetSocketAddress(server.host(), server.port()), (int) TIMEOUT.toMillis());
                reached(server + " accepted a connection");
                return;
            } catch (IOException e) {
                // try the next one
            }
        }
        failed("no bootstrap server accepts connections");
    }
}
