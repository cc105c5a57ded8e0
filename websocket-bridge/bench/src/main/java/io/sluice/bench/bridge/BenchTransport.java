package io.sluice.bench.bridge;

import java.util.Locale;

import io.sluice.cli.UsageException;

/**
 * How the bench's subscribers talk to the bridge: a WebSocket each, a Server-Sent Events stream each ({@code GET
 * {path}/sse}), or an MQTT 3.1.1 connection each (the bridge's MQTT listener, QoS 0).
 */
public enum BenchTransport {
    WEBSOCKET,
    SSE,
    MQTT;

    /** The name on the command line, in the summary and in the result. */
    public String label() {
        return name().toLowerCase(Locale.ROOT);
    }

    public static BenchTransport parse(String name) {
        for (BenchTransport t : values()) {
            if (t.label().equals(name)) {
                return t;
            }
        }
        throw new UsageException("--transport takes websocket, sse or mqtt, not " + name);
    }
}
