package io.sluice.bridge.server;

import java.time.Duration;
import java.util.Map;

import io.sluice.bridge.auth.TestAuthenticator;
import io.sluice.bridge.config.BridgeConfigLoader;

/**
 * A bridge node for tests, configured from YAML the way users configure it, on free ports, authenticating with
 * {@link TestAuthenticator}. Started only once its reader knows where it starts in every partition, so a test's
 * records produced after {@link #start} are all live.
 */
final class BridgeFixture implements AutoCloseable {

    private final BridgeServer server;

    private BridgeFixture(BridgeServer server) {
        this.server = server;
    }

    /** @param sections top-level YAML: {@code topics}, {@code endpoints}, {@code outbound}, {@code recovery}... */
    static BridgeFixture start(String bootstrap, String node, String sections) {
        return start(bootstrap, node, "", sections);
    }

    static BridgeFixture start(String bootstrap, String node, String serverExtra, String sections) {
        String yaml = """
                server:
                  listen: "127.0.0.1:0"
                  nodeName: %s
                %s
                kafka:
                  bootstrapServers: "%s"
                  metadataRefresh: 1s
                auth:
                  expiryWarning: 1s
                management:
                  port: 0
                %s
                """.formatted(node, serverExtra.indent(2), bootstrap, sections.stripIndent());
        BridgeServer server = BridgeServer.start(BridgeConfigLoader.parse(yaml, Map.of()), new TestAuthenticator());
        try {
            if (!server.awaitReading(Duration.ofSeconds(60))) {
                throw new IllegalStateException("bridge reader did not start");
            }
        }
        catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
        return new BridgeFixture(server);
    }

    int port() {
        return server.port();
    }

    BridgeServer server() {
        return server;
    }

    /** A Prometheus sample summed over the label sets containing {@code labelFragment}. */
    double metric(String name, String labelFragment) {
        double sum = 0;
        for (String line : server.meterRegistry().scrape().split("\n")) {
            if (line.startsWith(name) && (line.charAt(name.length()) == '{' || line.charAt(name.length()) == ' ')
                    && line.contains(labelFragment)) {
                sum += Double.parseDouble(line.substring(line.lastIndexOf(' ') + 1));
            }
        }
        return sum;
    }

    @Override
    public void close() {
        server.close();
    }
}
