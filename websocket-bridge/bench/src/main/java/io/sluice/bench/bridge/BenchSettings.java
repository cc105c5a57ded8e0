package io.sluice.bench.bridge;

import java.time.Duration;
import java.util.List;
import java.util.Locale;

import io.sluice.cli.UsageException;

/**
 * What one {@code sluice bench bridge} run does.
 *
 * @param connections  WebSocket connections or SSE streams, each subscribed to one random endpoint
 * @param endpoints    keys of the bench topic, one endpoint each
 * @param rate         messages/s produced per endpoint; 0 for the idle mode (connections only)
 * @param payloadBytes size of each record value
 * @param warmup       traffic before measuring (JIT, pools, caches)
 * @param duration     measured traffic, or how long idle connections are held
 * @param connectRate  new connections per second at most
 * @param perAddress   connections per loopback source address
 * @param clientThreads event loops of the subscribers
 * @param seed         picks the endpoints (and the structured values), so a run can be repeated
 * @param shape        what the records carry
 * @param fields       the field list every subscription asks for (JSON Pointers); empty: whole values
 * @param delta        whether subscriptions ask for JSON Patch deltas
 * @param transport    WebSocket connections or SSE streams
 */
public record BenchSettings(int connections, int endpoints, double rate, int payloadBytes, Duration warmup, Duration duration,
                     int connectRate, int perAddress, int clientThreads, long seed, ValueShape shape, List<String> fields,
                     boolean delta, BenchTransport transport) {

    public BenchSettings {
        require(connections > 0, "--connections must be at least 1");
        require(endpoints > 0, "--endpoints must be at least 1");
        require(rate >= 0 && Double.isFinite(rate), "--rate must be 0 (idle) or more");
        require(payloadBytes >= LatencyStamp.MIN_PAYLOAD, "--payload must be at least " + LatencyStamp.MIN_PAYLOAD + " bytes (the send stamp)");
        require(connectRate > 0, "--connect-rate must be at least 1");
        require(perAddress > 0 && perAddress <= 28_000, "--per-address must be 1..28000 (the ephemeral port range; 10000 keeps bind() fast)");
        require(clientThreads > 0, "--client-threads must be at least 1");
        fields = List.copyOf(fields);
        require(shape.structured() || fields.isEmpty() && !delta, "--fields and --delta need structured values: --value json or avro");
        require(fields.isEmpty() || fields.contains("/" + StructuredValues.STAMP_FIELD),
                "--fields must keep /" + StructuredValues.STAMP_FIELD + ": it carries the latency stamp");
    }

    /** Settings of the plain fan-out: raw values, whole, no deltas. */
    public BenchSettings(int connections, int endpoints, double rate, int payloadBytes, Duration warmup, Duration duration,
                  int connectRate, int perAddress, int clientThreads, long seed) {
        this(connections, endpoints, rate, payloadBytes, warmup, duration, connectRate, perAddress, clientThreads, seed,
                ValueShape.RAW, List.of(), false, BenchTransport.WEBSOCKET);
    }

    /** The same load over another transport. */
    public BenchSettings over(BenchTransport other) {
        return new BenchSettings(connections, endpoints, rate, payloadBytes, warmup, duration, connectRate, perAddress, clientThreads, seed,
                shape, fields, delta, other);
    }

    boolean idle() {
        return rate == 0;
    }

    /** Messages/s the subscribers should receive in all: each connection gets its endpoint's rate. */
    double expectedOutRate(int subscribedConnections) {
        return subscribedConnections * rate;
    }

    private static void require(boolean ok, String message) {
        if (!ok) {
            throw new UsageException(message);
        }
    }

    /** How the values look, as the summary names them. */
    String valueDescription() {
        if (!shape.structured()) {
            return payloadBytes + " B payload";
        }
        return shape.name().toLowerCase(Locale.ROOT) + " values (Lightstreamer scenario 3)"
                + (fields.isEmpty() ? ", whole" : ", fields " + String.join(",", fields)) + (delta ? ", deltas" : "");
    }

    @Override
    public String toString() {
        return "%,d %s connections, %,d endpoints, %s msgs/s per endpoint (%,.0f msgs/s produced, %,.0f msgs/s out expected), %s, %d s warm-up + %d s"
                .formatted(connections, transport.label(), endpoints, rate, endpoints * rate, connections * rate, valueDescription(), warmup.toSeconds(), duration.toSeconds());
    }
}
