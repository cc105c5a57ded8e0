package io.sluice.auth.testing;

import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;

import com.sun.net.httpserver.HttpServer;

/**
 * Serves a JWKS document over HTTP on loopback, as an identity provider's jwks_uri does; the document can change, and
 * the answers can be slowed down, as an overloaded identity provider's are.
 */
public final class JwksServer implements AutoCloseable {

    private final HttpServer server;
    private final AtomicInteger fetches = new AtomicInteger();
    private volatile String jwks;
    private volatile Duration delay = Duration.ZERO;

    public JwksServer(String jwks) throws IOException {
        this.jwks = jwks;
        this.server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
        server.createContext("/jwks.json", exchange -> {
            fetches.incrementAndGet();
            pause(delay);
            byte[] body = this.jwks.getBytes(StandardCharsets.UTF_8);
            exchange.getResponseHeaders().add("Content-Type", "application/json");
            exchange.sendResponseHeaders(200, body.length);
            try (OutputStream out = exchange.getResponseBody()) {
                out.write(body);
            }
        });
        server.start();
    }

    public String url() {
        return "http://127.0.0.1:" + server.getAddress().getPort() + "/jwks.json";
    }

    public void publish(String jwks) {
        this.jwks = jwks;
    }

    /** Every later answer is sent this long after its request arrived. */
    public void delay(Duration delay) {
        this.delay = delay;
    }

    private static void pause(Duration delay) {
        try {
            Thread.sleep(delay.toMillis());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    public int fetches() {
        return fetches.get();
    }

    @Override
    public void close() {
        server.stop(0);
    }
}
