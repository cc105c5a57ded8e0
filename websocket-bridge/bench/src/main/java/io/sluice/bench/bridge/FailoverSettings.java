package io.sluice.bench.bridge;

import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.Map;

import io.sluice.cli.UsageException;

/**
 * What one failover run does: {@code nodes} bridge nodes behind a round-robin front, {@code clients} recovering
 * clients, traffic, and one node stopped under load.
 *
 * @param nodes         bridge nodes, each a child JVM on the one Kafka and topic
 * @param clients       clients, each on one random endpoint, connected through the front
 * @param endpoints     keys of the topic, one endpoint each
 * @param partitions    the topic's partitions
 * @param rate          messages/s produced per endpoint
 * @param payloadBytes  size of each record value (the stamp and filler)
 * @param warmup        traffic before the first measured window
 * @param window        the length of each measured window: before the stop, the storm right after it, and after that
 * @param stop          how the node is stopped
 * @param stopNode      which node (1-based) is stopped
 * @param backoff       how clients wait before reconnecting
 * @param connectRate   new connections per second at most while the clients first connect
 * @param clientThreads event loops of the clients
 * @param settle        how long to wait for the clients to connect, for the stopped node's clients to subscribe
 *                      again, and for every client to catch up at the end
 * @param bridgeJvm     each node JVM's options
 * @param bridgeKafka   extra kafka.properties of each node
 * @param seed          picks the clients' endpoints and the backoff jitter
 */
public record FailoverSettings(int nodes, int clients, int endpoints, int partitions, double rate, int payloadBytes, Duration warmup, Duration window,
                               Stop stop, int stopNode, ReconnectBackoff backoff, int connectRate, int clientThreads, Duration settle,
                               List<String> bridgeJvm, Map<String, String> bridgeKafka, long seed) {

    /** How the node goes. */
    public enum Stop {
        /** SIGKILL: the crash; its clients see their TCP connections reset, with no close frame. */
        KILL,
        /** SIGTERM: a graceful stop; the node closes its connections with 1001. */
        TERM;

        public static Stop parse(String name) {
            for (Stop s : values()) {
                if (s.label().equals(name)) {
                    return s;
                }
            }
            throw new UsageException("--kill-mode takes kill or term, not " + name);
        }

        public String label() {
            return name().toLowerCase(Locale.ROOT);
        }

        String signal() {
            return this == KILL ? "SIGKILL" : "SIGTERM";
        }
    }

    public FailoverSettings {
        require(nodes >= 2, "--nodes must be at least 2: one is stopped and its clients need another");
        require(clients > 0, "--clients must be at least 1");
        require(endpoints > 0, "--endpoints must be at least 1");
        require(partitions > 0, "--partitions must be at least 1");
        require(rate > 0 && Double.isFinite(rate), "--rate must be above 0");
        require(payloadBytes >= LatencyStamp.MIN_PAYLOAD, "--payload must be at least " + LatencyStamp.MIN_PAYLOAD + " bytes (the send stamp)");
        require(!window.isNegative() && window.toSeconds() >= 1, "--window must be at least 1 s");
        require(!warmup.isNegative(), "--warmup must be 0 or more");
        require(stopNode >= 1 && stopNode <= nodes, "--kill-node must be 1.." + nodes);
        require(connectRate > 0, "--connect-rate must be at least 1");
        require(clientThreads > 0, "--client-threads must be at least 1");
        require(settle.toSeconds() >= 1, "--settle must be at least 1 s");
        bridgeJvm = List.copyOf(bridgeJvm);
        bridgeKafka = Map.copyOf(bridgeKafka);
    }

    /** Descriptors this process holds per client: its socket, and the front's two (client side and node side). */
    static final int FILES_PER_CLIENT = 3;

    private static void require(boolean ok, String message) {
        if (!ok) {
            throw new UsageException(message);
        }
    }

    @Override
    public String toString() {
        return "%d nodes, %,d clients on %,d endpoints (%d partitions), %s msgs/s per endpoint (%,.0f produced, %,.0f delivered a second), %d B payload; %d s warm-up, windows of %d s; %s node %d; reconnect within %d ms, then exponentially up to %d ms"
                .formatted(nodes, clients, endpoints, partitions, rate, endpoints * rate, clients * rate, payloadBytes, warmup.toSeconds(), window.toSeconds(),
                        stop.signal(), stopNode, backoff.firstMillis(), backoff.maxMillis());
    }
}
