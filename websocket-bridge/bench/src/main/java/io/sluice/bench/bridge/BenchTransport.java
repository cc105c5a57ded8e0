package io.sluice.bench.bridge;

import java.util.Locale;

import io.sluice.cli.UsageException;

/** How the bench's subscribers talk to the bridge: a WebSocket each, or a Server-Sent Events stream each ({@code GET {path}/sse}). */
public enum BenchTransport {
    WEBSOCKET,
    SSE;

    /** The name on the command line, in the summary and in the result. */
    String label() {
        return name().toLowerCase(Locale.ROOT);
    }

    public static BenchTransport parse(String name) {
        for (BenchTransport t : values()) {
            if (t.label().equals(name)) {
                return t;
            }
        }
        throw new UsageException("--transport takes websocket or sse, not " + name);
    }
}
