package io.sluice.auth.testing;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;

import com.sun.net.httpserver.HttpExchange;

import io.sluice.testkit.HttpStandIn;

/**
 * Serves a JWKS document over HTTP on loopback, as an identity provider's jwks_uri does; the document can change, and
 * the answers can be slowed down, as an overloaded identity provider's are. The server half is {@link HttpStandIn}'s.
 */
public final class JwksServer extends HttpStandIn {

    private static final String PATH = "/jwks.json";

    private volatile String jwks;

    public JwksServer(String jwks) throws IOException {
        super("jwks-server", null);
        this.jwks = jwks;
        listen(0);
    }

    @Override
    protected void handle(HttpExchange exchange) throws IOException {
        if (!exchange.getRequestURI().getPath().startsWith(PATH)) {
            send(exchange, 404, "text/plain", "not found".getBytes(StandardCharsets.UTF_8));
            return;
        }
        count("jwks");
        send(exchange, 200, "application/json", jwks.getBytes(StandardCharsets.UTF_8));
    }

    @Override
    public String url() {
        return super.url() + PATH;
    }

    public void publish(String jwks) {
        this.jwks = jwks;
    }

    /** Every later answer is sent this long after its request arrived. */
    public void delay(Duration delay) {
        latency(delay);
    }

    public int fetches() {
        return requests("jwks");
    }
}
