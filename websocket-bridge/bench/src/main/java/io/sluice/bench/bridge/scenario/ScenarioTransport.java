package io.sluice.bench.bridge.scenario;

import io.sluice.bench.bridge.BenchTransport;
import io.sluice.cli.UsageException;

/** A publishing scenario's {@code --transport}: its clients both publish and receive, which SSE cannot. */
final class ScenarioTransport {

    private ScenarioTransport() {
    }

    static BenchTransport parse(String name) {
        BenchTransport transport = BenchTransport.parse(name);
        if (transport == BenchTransport.SSE) {
            throw new UsageException("--transport takes websocket or mqtt here: SSE clients cannot publish");
        }
        return transport;
    }
}
