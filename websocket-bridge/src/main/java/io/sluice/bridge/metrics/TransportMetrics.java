package io.sluice.bridge.metrics;

import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;

/**
 * The per-connection metrics of one transport ({@code transport="websocket"} or {@code "sse"}): open connections,
 * connections accepted, messages and bytes written. A session takes its transport's once, so counting a message stays
 * two LongAdder additions.
 */
public final class TransportMetrics {

    private final AtomicLong connections = new AtomicLong();
    private final Counter connectionsOpened;
    // Counted for every message to every subscriber: plain LongAdders read at scrape time. Micrometer counters
    // (a DoubleAdder behind a few layers, per increment) were 19 % of the event loops' samples in `bench bridge`.
    private final LongAdder messagesOut = new LongAdder();
    private final LongAdder bytesOut = new LongAdder();

    TransportMetrics(MeterRegistry registry, String transport) {
        Gauge.builder("sluice.bridge.connections", connections, AtomicLong::get).tag("transport", transport)
                .description("Client connections currently open (WebSocket sessions, SSE streams)").strongReference(true).register(registry);
        connectionsOpened = Counter.builder("sluice.bridge.connections.opened").tag("transport", transport)
                .description("Client connections accepted (WebSocket upgrades, SSE streams started)").register(registry);
        FunctionCounter.builder("sluice.bridge.messages.out", messagesOut, LongAdder::doubleValue).tag("transport", transport)
                .description("Messages written to clients (recovered ones included)").register(registry);
        FunctionCounter.builder("sluice.bridge.bytes.out", bytesOut, LongAdder::doubleValue).tag("transport", transport)
                .description("Bytes of messages written to clients (the message JSON, without the transport's framing)")
                .register(registry);
    }

    public void connectionOpened() {
        connections.incrementAndGet();
        connectionsOpened.increment();
    }

    public void connectionClosed() {
        connections.decrementAndGet();
    }

    long connections() {
        return connections.get();
    }

    public void messageOut(int bytes) {
        messagesOut.increment();
        bytesOut.add(bytes);
    }
}
