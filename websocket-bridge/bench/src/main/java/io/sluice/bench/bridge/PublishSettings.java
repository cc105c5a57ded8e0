package io.sluice.bench.bridge;

import io.sluice.cli.UsageException;

/**
 * What the publishing clients of one run do.
 *
 * @param clients       WebSocket connections, each publishing to its own endpoint
 * @param ratePerClient publishes per second each client sends (0.2: one every 5 s)
 * @param payloadBytes  size of each published value (the record value in Kafka)
 * @param connectRate   new connections per second at most
 * @param perAddress    connections per loopback source address
 * @param clientThreads event loops of the publishing clients
 * @param seed          spreads the clients' schedules within one period, so a run can be repeated
 */
public record PublishSettings(int clients, double ratePerClient, int payloadBytes, int connectRate, int perAddress, int clientThreads, long seed,
                              BenchTransport transport) {

    /** The stamp, a space, the widest {@code client:index} name, a space. */
    static final int MIN_PAYLOAD = LatencyStamp.DIGITS + 1 + 24 + 1;

    public PublishSettings {
        require(clients > 0, "the publishing clients must be at least 1");
        require(ratePerClient > 0 && Double.isFinite(ratePerClient), "the publish rate per client must be above 0");
        require(payloadBytes >= MIN_PAYLOAD, "the published payload must be at least " + MIN_PAYLOAD + " bytes (stamp and name)");
        require(connectRate > 0, "--connect-rate must be at least 1");
        require(perAddress > 0 && perAddress <= 28_000, "--per-address must be 1..28000");
        require(clientThreads > 0, "--client-threads must be at least 1");
        require(transport != BenchTransport.SSE, "publishing clients use websocket or mqtt (SSE is one way)");
    }

    /** Over WebSocket. */
    public PublishSettings(int clients, double ratePerClient, int payloadBytes, int connectRate, int perAddress, int clientThreads, long seed) {
        this(clients, ratePerClient, payloadBytes, connectRate, perAddress, clientThreads, seed, BenchTransport.WEBSOCKET);
    }

    long periodNanos() {
        return Math.round(1e9 / ratePerClient);
    }

    /** Publishes per second expected from all clients. */
    public double expectedRate() {
        return clients * ratePerClient;
    }

    private static void require(boolean ok, String message) {
        if (!ok) {
            throw new UsageException(message);
        }
    }

    @Override
    public String toString() {
        return "%,d publishing clients over %s, %s publishes/s each (%,.0f/s in all), %d B payload".formatted(clients, transport.label(), ratePerClient,
                expectedRate(), payloadBytes);
    }

}
