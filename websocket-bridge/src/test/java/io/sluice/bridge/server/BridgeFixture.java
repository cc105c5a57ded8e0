package io.sluice.bridge.server;

import java.time.Duration;
import java.util.Map;

import io.sluice.bridge.auth.Authenticator;
import io.sluice.bridge.auth.JwtAuthenticator;
import io.sluice.bridge.auth.TestAuthenticator;
import io.sluice.bridge.config.BridgeConfig;
import io.sluice.bridge.config.BridgeConfigLoader;
import io.sluice.bridge.web.StaticContent;

/**
 * A bridge node for tests, configured from YAML the way users configure it, on free ports, authenticating with
 * {@link TestAuthenticator} or, given an {@code auth.jwt} section, with real JWTs as {@code sluice bridge} does. Started only once its reader knows where it starts in every partition, so a test's
 * records produced after {@link #start} are all live.
 */
public final class BridgeFixture implements AutoCloseable {

    private final BridgeServer server;
    private final JwtAuthenticator jwt;

    private BridgeFixture(BridgeServer server, JwtAuthenticator jwt) {
        this.server = server;
        this.jwt = jwt;
    }

    /** @param sections top-level YAML: {@code topics}, {@code endpoints}, {@code outbound}, {@code recovery}... */
    public static BridgeFixture start(String bootstrap, String node, String sections) {
        return on(bootstrap, node).start(sections);
    }

    public static BridgeFixture start(String bootstrap, String node, String serverExtra, String sections) {
        return on(bootstrap, node).server(serverExtra).start(sections);
    }

    /**
     * @param authExtra more of the {@code auth} section; with a {@code jwt:} entry the node authenticates real tokens
     *                  through the authenticator {@code sluice bridge} builds
     */
    /**
     * The {@code auth:} extra of a bridge that validates real JWTs from {@code jwksUrl}, issued by
     * {@code io.sluice.auth.testing.TestIssuer}; with {@code clockSkew} 0s a token ends exactly at its exp.
     */
    public static String jwtAuth(String jwksUrl, String issuer, String audience, String clockSkew) {
        return """
                jwt:
                  jwks: "%s"
                  issuer: "%s"
                  audience: "%s"
                  clockSkew: %s
                  allowHttpJwks: true
                """.formatted(jwksUrl, issuer, audience, clockSkew);
    }

    public static BridgeFixture start(String bootstrap, String node, String serverExtra, String authExtra, String sections) {
        return on(bootstrap, node).server(serverExtra).auth(authExtra).start(sections);
    }

    /** A node with more settings than the shortcuts above take. */
    public static Options on(String bootstrap, String node) {
        return new Options(bootstrap, node);
    }

    public static final class Options {
        private final String bootstrap;
        private final String node;
        private String listen = "127.0.0.1:0";
        private String serverExtra = "";
        private String authExtra = "";
        private String kafkaExtra = "";
        private StaticContent content = StaticContent.none();
        private boolean awaitReading = true;

        private Options(String bootstrap, String node) {
            this.bootstrap = bootstrap;
            this.node = node;
        }

        /** host:port; a fixed port lets a test restart a node where its clients reconnect. */
        public Options listen(String listen) {
            this.listen = listen;
            return this;
        }

        public Options server(String serverExtra) {
            this.serverExtra = serverExtra;
            return this;
        }

        public Options auth(String authExtra) {
            this.authExtra = authExtra;
            return this;
        }

        /** More lines of the {@code kafka:} section, e.g. {@code publishTimeout: 3s}. */
        public Options kafka(String kafkaExtra) {
            this.kafkaExtra = kafkaExtra;
            return this;
        }

        public Options serving(StaticContent content) {
            this.content = content;
            return this;
        }

        /** Returns once the listener is bound, before the reader has started (as a restarted node's clients find it). */
        public Options withoutAwaitingTheReader() {
            this.awaitReading = false;
            return this;
        }

        public BridgeFixture start(String sections) {
            String yaml = """
                    server:
                      listen: "%s"
                      nodeName: %s
                    %s
                    kafka:
                      bootstrapServers: "%s"
                      metadataRefresh: 1s
                    %s
                    auth:
                      expiryWarning: 1s
                    %s
                    management:
                      port: 0
                    %s
                    """.formatted(listen, node, serverExtra.stripIndent().indent(2), bootstrap, kafkaExtra.stripIndent().indent(2),
                    authExtra.stripIndent().indent(2),
                    sections.stripIndent());
            BridgeConfig config = BridgeConfigLoader.parse(yaml, Map.of());
            JwtAuthenticator jwt = config.auth().jwt() == null ? null : JwtAuthenticator.forBridge(config);
            Authenticator authenticator = jwt == null ? new TestAuthenticator() : jwt;
            BridgeServer server = BridgeServer.start(config, authenticator, content);
            try {
                if (awaitReading && !server.awaitReading(Duration.ofSeconds(60))) {
                    throw new IllegalStateException("bridge reader did not start");
                }
            }
            catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException(e);
            }
            return new BridgeFixture(server, jwt);
        }
    }

    public int port() {
        return server.port();
    }

    public BridgeServer server() {
        return server;
    }

    /** A Prometheus sample summed over the label sets containing {@code labelFragment}. */
    public double metric(String name, String labelFragment) {
        double sum = 0;
        for (String line : server.meterRegistry().scrape().split("\n")) {
            if (line.startsWith(name) && (line.charAt(name.length()) == '{' || line.charAt(name.length()) == ' ')
                    && line.contains(labelFragment)) {
                sum += Double.parseDouble(line.substring(line.lastIndexOf(' ') + 1));
            }
        }
        return sum;
    }

    /** The status of a GET of the management port's {@code path} ({@code /readyz}, {@code /livez}). */
    public int management(String path) throws java.io.IOException, InterruptedException {
        return java.net.http.HttpClient.newHttpClient().send(java.net.http.HttpRequest.newBuilder(
                        java.net.URI.create("http://127.0.0.1:" + server.managementPort() + path)).timeout(Duration.ofSeconds(10)).build(),
                java.net.http.HttpResponse.BodyHandlers.discarding()).statusCode();
    }

    @Override
    public void close() {
        server.close();
        if (jwt != null) {
            jwt.close();
        }
    }
}
