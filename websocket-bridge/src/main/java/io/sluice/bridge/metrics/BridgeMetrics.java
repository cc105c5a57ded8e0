package io.sluice.bridge.metrics;

import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;

/**
 * The bridge's meters, all resolved at start-up so the delivery path only increments fields. Names are documented in
 * docs/bridge.md; they share the {@code sluice_} prefix with the proxy's.
 */
public final class BridgeMetrics {

    private static final Duration[] LATENCY_BUCKETS = {
            Duration.ofMillis(1), Duration.ofMillis(2), Duration.ofMillis(5), Duration.ofMillis(10),
            Duration.ofMillis(25), Duration.ofMillis(50), Duration.ofMillis(100), Duration.ofMillis(250),
            Duration.ofMillis(500), Duration.ofSeconds(1), Duration.ofMillis(2_500), Duration.ofSeconds(5),
            Duration.ofSeconds(10), Duration.ofSeconds(30),
    };

    private final TransportMetrics websocket;
    private final TransportMetrics sse;
    private final TransportMetrics mqtt;
    private final AtomicLong subscriptions = new AtomicLong();
    private final Counter recordsRead;
    private final Counter conflated;
    private final Counter slowClientCloses;
    private final Counter slowClientTimeouts;
    private final MeterRegistry registry;
    private final Counter handshakeTimeouts;
    private final Counter authFailures;
    private final Counter tokenExpiries;
    private final Counter clientErrors;
    private final Counter recoveryCache;
    private final Counter recoveryKafka;
    private final Counter recoveryGaps;
    private final Counter publishOk;
    private final Counter publishFailed;
    private final Timer endToEnd;
    private final Map<String, Counter> refusals = new HashMap<>();
    private final AtomicLong groups = new AtomicLong();
    private final AtomicLong bodyBytes = new AtomicLong();
    private final LongAdder groupSelections = new LongAdder();

    public BridgeMetrics(MeterRegistry registry) {
        this.registry = registry;
        websocket = new TransportMetrics(registry, "websocket");
        sse = new TransportMetrics(registry, "sse");
        mqtt = new TransportMetrics(registry, "mqtt");
        Gauge.builder("sluice.bridge.subscriptions", subscriptions, AtomicLong::get)
                .description("Subscriptions currently active").strongReference(true).register(registry);
        Gauge.builder("sluice.bridge.groups", groups, AtomicLong::get)
                .description("Distinct (filter, fields) selections subscribed on this node (docs/bridge-filters.md#groups)")
                .strongReference(true).register(registry);
        Gauge.builder("sluice.bridge.http.body.bytes", bodyBytes, AtomicLong::get)
                .description("Bytes of HTTP session and publish request bodies read and held until the request is complete (docs/security.md)")
                .strongReference(true).register(registry);
        FunctionCounter.builder("sluice.bridge.group.selections", groupSelections, LongAdder::doubleValue)
                .description("Live messages run through a group's filter and field list: once per message and group, not per subscriber")
                .register(registry);
        recordsRead = counter(registry, "sluice.bridge.kafka.records", "Records read from Kafka by the live reader");
        conflated = counter(registry, "sluice.bridge.messages.conflated", "Messages skipped for slow clients because a newer one of the same endpoint replaced them");
        slowClientCloses = Counter.builder("sluice.bridge.slow.client.closes").tag("reason", "max_bytes")
                .description("Connections closed with 4008, by the limit exceeded").register(registry);
        slowClientTimeouts = Counter.builder("sluice.bridge.slow.client.closes").tag("reason", "max_slow_time")
                .description("Connections closed with 4008, by the limit exceeded").register(registry);
        handshakeTimeouts = counter(registry, "sluice.bridge.handshake.timeouts",
                "Connections closed for not completing the WebSocket upgrade within connections.handshakeTimeout");
        authFailures = counter(registry, "sluice.bridge.auth.failures", "Connections closed with 4001");
        tokenExpiries = counter(registry, "sluice.bridge.token.expiries", "Connections closed with 4002");
        clientErrors = counter(registry, "sluice.bridge.client.errors", "Requests answered with an error message");
        recoveryCache = Counter.builder("sluice.bridge.recovery.requests").tag("source", "cache")
                .description("Partition recoveries, by where the missed messages came from").register(registry);
        recoveryKafka = Counter.builder("sluice.bridge.recovery.requests").tag("source", "kafka")
                .description("Partition recoveries, by where the missed messages came from").register(registry);
        recoveryGaps = counter(registry, "sluice.bridge.recovery.gaps", "Gap messages sent: missed messages that could not be recovered");
        publishOk = Counter.builder("sluice.bridge.publish").tag("result", "ok")
                .description("Client publishes, by result").register(registry);
        publishFailed = Counter.builder("sluice.bridge.publish").tag("result", "error")
                .description("Client publishes, by result").register(registry);
        endToEnd = Timer.builder("sluice.bridge.end.to.end.latency")
                .description("Kafka record timestamp to the moment the bridge writes it to clients (one sample per record and event loop)")
                .serviceLevelObjectives(LATENCY_BUCKETS)
                .register(registry);
        for (String reason : REFUSALS) {
            refusals.put(reason, Counter.builder("sluice.bridge.requests.refused").tag("reason", reason)
                    .description("Requests refused by a limit on what one client may ask of the node (docs/bridge.md#limits)")
                    .register(registry));
        }
    }

    /** The {@code reason}s of {@link #refused}: which limit refused a request. */
    public static final List<String> REFUSALS = List.of(
            "recovery_node_busy", "recovery_connection_busy", "refresh_in_flight", "subscribe_rate", "publishes_in_flight",
            "token_validation_busy", "reader_starting", "subject_connections", "http2_request_deadline", "http2_body_budget");

    /** Where {@code BodyLimit}s count the body bytes they hold (+) and hand on or drop (-): the node's total. */
    public java.util.function.LongConsumer bodyBytes() {
        return bodyBytes::addAndGet;
    }

    /** A record's key or value its topic's format could not decode (docs/bridge-formats.md#decode-failures). */
    public void decodeFailed(String topic, String part, String reason) {
        Counter.builder("sluice.bridge.decode.failures").tag("topic", topic).tag("part", part)
                .description("Record keys and values their topic's format could not decode").register(registry).increment();
    }

    /**
     * A record whose work threw where nothing should (a last line: decoding, selection, projection or delta), by the
     * stage it was in: {@code decode}, {@code select}, {@code delta}, {@code recovery}. The record cost itself only.
     */
    public void recordFailed(String stage) {
        Counter.builder("sluice.bridge.record.failures").tag("stage", stage)
                .description("Records whose decoding, selection or delta failed unexpectedly; each cost itself only")
                .register(registry).increment();
    }

    public void groupAdded() {
        groups.incrementAndGet();
    }

    public void groupRemoved() {
        groups.decrementAndGet();
    }

    public void groupSelection() {
        groupSelections.increment();
    }

    /** @param reason one of {@link #REFUSALS} */
    public void refused(String reason) {
        refusals.get(reason).increment();
    }

    private static Counter counter(MeterRegistry registry, String name, String description) {
        return Counter.builder(name).description(description).register(registry);
    }

    /** @param transport {@code websocket}, {@code sse} or {@code mqtt} ({@link io.sluice.bridge.session.Wire#transport()}) */
    public TransportMetrics transport(String transport) {
        return switch (transport) {
            case "websocket" -> websocket;
            case "sse" -> sse;
            case "mqtt" -> mqtt;
            default -> throw new IllegalArgumentException("unknown transport " + transport);
        };
    }

    public void subscriptionAdded() {
        subscriptions.incrementAndGet();
    }

    public void subscriptionRemoved() {
        subscriptions.decrementAndGet();
    }

    public void recordRead() {
        recordsRead.increment();
    }


    public void conflated() {
        conflated.increment();
    }

    public void slowClientClosed() {
        slowClientCloses.increment();
    }

    /** A connection stayed above the high-water mark for {@code outbound.maxSlowTime}. */
    public void slowClientTimedOut() {
        slowClientTimeouts.increment();
    }

    public void handshakeTimedOut() {
        handshakeTimeouts.increment();
    }

    /**
     * A connection or upgrade refused by a connection limit or policy. Rare except under attack, when the registry's
     * own lookup of the existing counter is cheap next to accepting and closing a socket.
     */
    public void connectionRefused(String reason) {
        Counter.builder("sluice.bridge.connections.refused").tag("reason", reason)
                .description("Connections or upgrades refused, by reason (docs/bridge.md)").register(registry).increment();
    }

    /**
     * A client message over the size limit in force closed the connection with 1009.
     *
     * @param stage {@code before_connect} (the small pre-connect limit) or {@code connected}
     */
    public void inboundTooLarge(String stage) {
        Counter.builder("sluice.bridge.messages.too.large").tag("stage", stage)
                .description("Connections closed with 1009: a client message over the limit, before connect or after (docs/bridge.md)")
                .register(registry).increment();
    }

    public void authFailed() {
        authFailures.increment();
    }

    public void tokenExpired() {
        tokenExpiries.increment();
    }

    public void clientError() {
        clientErrors.increment();
    }

    /** @param source {@code cache} or {@code kafka} */
    public void recovery(String source) {
        (source.equals("cache") ? recoveryCache : recoveryKafka).increment();
    }

    public void recoveryGap() {
        recoveryGaps.increment();
    }

    public void published(boolean ok) {
        (ok ? publishOk : publishFailed).increment();
    }

    public void endToEndLatency(long millis) {
        endToEnd.record(Math.max(0, millis), TimeUnit.MILLISECONDS);
    }

    /** Client connections open, every transport. */
    public long connections() {
        return websocket.connections() + sse.connections() + mqtt.connections();
    }

    /**
     * An answer of the HTTP routes ({@code sluice_bridge_http_requests_total}); publishes also count in
     * {@code sluice_bridge_publish_total} with the WebSocket ones.
     *
     * @param path   {@code session} or {@code publish}: a fixed set, so the label stays small
     * @param status the HTTP status sent
     */
    public void httpRequest(String path, int status) {
        Counter.builder("sluice.bridge.http.requests").tag("path", path).tag("status", Integer.toString(status))
                .description("Answers to HTTP session and publish requests, by path and status").register(registry).increment();
    }
}
