package io.sluice.proxy.metrics;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.Timer;
import org.apache.kafka.common.protocol.ApiKeys;

import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReferenceArray;

/**
 * Meters of one virtual cluster's client connections through one port: labelled {@code virtual_cluster} and
 * {@code node_id} (the broker node the port stands for, or {@code bootstrap}), so a hot or failing broker shows
 * in every series. Methods are called from Netty event loops per read and per request, so every
 * meter they touch is resolved ahead of time: plain fields, or an array slot indexed by the Kafka api key.
 */
public final class VirtualClusterMetrics {

    static final String TAG_VIRTUAL_CLUSTER = "virtual_cluster";
    static final String TAG_NODE_ID = "node_id";
    static final String TAG_API_KEY = "api_key";
    static final String UNKNOWN_API_KEY = "UNKNOWN";

    // Kafka requests range from an in-memory ApiVersions (tens of µs through the proxy) to a Fetch that waits out
    // fetch.max.wait.ms or a JoinGroup held for a rebalance (seconds).
    private static final Duration[] LATENCY_BUCKETS = {
            Duration.ofNanos(50_000), Duration.ofNanos(100_000), Duration.ofNanos(250_000), Duration.ofNanos(500_000),
            Duration.ofMillis(1), Duration.ofNanos(2_500_000), Duration.ofMillis(5), Duration.ofMillis(10),
            Duration.ofMillis(25), Duration.ofMillis(50), Duration.ofMillis(100), Duration.ofMillis(250),
            Duration.ofMillis(500), Duration.ofSeconds(1), Duration.ofMillis(2_500), Duration.ofSeconds(5),
            Duration.ofSeconds(10),
    };

    // Label values are chosen by proxy code, not clients, but a cap costs nothing and bounds a mistake.
    private static final int MAX_REASONS = 32;
    private static final int MAX_FILTERS = 128;

    private static final ApiKeys[] API_KEYS_BY_ID = apiKeysById();

    private final MeterRegistry registry;
    private final Tags tags;

    private final AtomicLong openConnections = new AtomicLong();
    private final Counter connectionsOpened;
    private final BoundedCounters connectionsRejected;
    private final BoundedCounters connectionsRefused;
    private final Counter bytesFromClient;
    private final Counter bytesToClient;
    private final Counter bytesToBroker;
    private final Counter bytesFromBroker;
    private final BoundedCounters filterErrors;
    private final Counter upstreamConnectFailures;

    // Created on first use so a scrape lists only the APIs a cluster's clients actually call.
    private final AtomicReferenceArray<Timer> latencyByApiKey = new AtomicReferenceArray<>(API_KEYS_BY_ID.length);
    private volatile Timer unknownApiKeyLatency;

    VirtualClusterMetrics(MeterRegistry registry, String virtualCluster, String nodeId) {
        this.registry = registry;
        this.tags = Tags.of(TAG_VIRTUAL_CLUSTER, virtualCluster, TAG_NODE_ID, nodeId);

        Gauge.builder("sluice.client.connections", openConnections, AtomicLong::get)
                .description("Client connections currently open")
                .tags(tags)
                .strongReference(true)
                .register(registry);
        connectionsOpened = Counter.builder("sluice.client.connections.opened")
                .description("Client connections accepted")
                .tags(tags)
                .register(registry);
        connectionsRejected = new BoundedCounters(registry, "sluice.client.connections.rejected",
                "Client connections closed by the proxy because of what the client sent or an unavailable upstream",
                tags, "reason", MAX_REASONS);
        connectionsRefused = new BoundedCounters(registry, "sluice.client.connections.refused",
                "Client connections closed as they were accepted because a connection limit was reached",
                tags, "reason", MAX_REASONS);
        bytesFromClient = bytes("from_client");
        bytesToClient = bytes("to_client");
        bytesToBroker = bytes("to_broker");
        bytesFromBroker = bytes("from_broker");
        filterErrors = new BoundedCounters(registry, "sluice.filter.errors",
                "Exceptions thrown by filters", tags, "filter", MAX_FILTERS);
        upstreamConnectFailures = Counter.builder("sluice.upstream.connect.failures")
                .description("Failed attempts to connect to an upstream broker")
                .tags(tags)
                .register(registry);
    }

    public void connectionOpened() {
        openConnections.incrementAndGet();
        connectionsOpened.increment();
    }

    public void connectionClosed() {
        openConnections.decrementAndGet();
    }

    public void connectionRejected(String reason) {
        connectionsRejected.increment(reason);
    }

    /** A connection closed at accept time: {@code max_connections} or {@code max_connections_per_client_ip}. */
    public void connectionRefused(String reason) {
        connectionsRefused.increment(reason);
    }

    public void bytesFromClient(long n) {
        bytesFromClient.increment(n);
    }

    public void bytesToClient(long n) {
        bytesToClient.increment(n);
    }

    public void bytesToBroker(long n) {
        bytesToBroker.increment(n);
    }

    public void bytesFromBroker(long n) {
        bytesFromBroker.increment(n);
    }

    public void requestCompleted(short apiKey, long latencyNanos) {
        latencyTimer(apiKey).record(latencyNanos, TimeUnit.NANOSECONDS);
    }

    public void filterError(String filterName) {
        filterErrors.increment(filterName);
    }

    public void upstreamConnectFailed() {
        upstreamConnectFailures.increment();
    }

    private Timer latencyTimer(short apiKey) {
        if (apiKey < 0 || apiKey >= API_KEYS_BY_ID.length || API_KEYS_BY_ID[apiKey] == null) {
            Timer unknown = unknownApiKeyLatency;
            return unknown != null ? unknown : createUnknownApiKeyMeters();
        }
        Timer timer = latencyByApiKey.get(apiKey);
        return timer != null ? timer : createApiKeyMeters(apiKey);
    }

    // Locked so that racing event loops register each meter once; the registry would dedupe, but warns about it.
    private synchronized Timer createApiKeyMeters(short apiKey) {
        Timer timer = latencyByApiKey.get(apiKey);
        if (timer == null) {
            timer = registerRequestMeters(API_KEYS_BY_ID[apiKey].name());
            latencyByApiKey.set(apiKey, timer);
        }
        return timer;
    }

    private synchronized Timer createUnknownApiKeyMeters() {
        Timer timer = unknownApiKeyLatency;
        if (timer == null) {
            timer = registerRequestMeters(UNKNOWN_API_KEY);
            unknownApiKeyLatency = timer;
        }
        return timer;
    }

    private Timer registerRequestMeters(String apiKeyName) {
        Timer timer = Timer.builder("sluice.request.latency")
                .description("Time from a client request entering the proxy to its response leaving it")
                .tags(tags)
                .tag(TAG_API_KEY, apiKeyName)
                .serviceLevelObjectives(LATENCY_BUCKETS)
                .register(registry);
        // Reads the timer's own count at scrape time, so counting requests adds nothing to the request path.
        FunctionCounter.builder("sluice.requests", timer, Timer::count)
                .description("Client requests completed")
                .tags(tags)
                .tag(TAG_API_KEY, apiKeyName)
                .register(registry);
        return timer;
    }

    private Counter bytes(String direction) {
        return Counter.builder("sluice.bytes")
                .description("Bytes moved by the proxy, by direction relative to the proxy")
                .tags(tags)
                .tag("direction", direction)
                .register(registry);
    }

    private static ApiKeys[] apiKeysById() {
        int maxId = 0;
        for (ApiKeys key : ApiKeys.values()) {
            maxId = Math.max(maxId, key.id);
        }
        ApiKeys[] byId = new ApiKeys[maxId + 1];
        for (ApiKeys key : ApiKeys.values()) {
            byId[key.id] = key;
        }
        return byId;
    }
}
