package io.sluice.management;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BooleanSupplier;
import java.util.function.Supplier;

/**
 * Metrics and health endpoints on a port of their own. It runs on the JDK's HTTP server with its own two threads,
 * so a slow scrape or a readiness check that blocks never stalls a Netty event loop carrying Kafka traffic.
 */
public final class ManagementServer implements AutoCloseable {

    /** Outcome of one named readiness check; {@code detail} is shown to whoever calls /readyz, so no secrets. */
    public record Readiness(boolean ready, String detail) {
        public static Readiness ready(String detail) {
            return new Readiness(true, detail);
        }

        public static Readiness notReady(String detail) {
            return new Readiness(false, detail);
        }
    }

    private static final Logger LOG = LoggerFactory.getLogger(ManagementServer.class);
    private static final ObjectMapper JSON = new ObjectMapper();
    // The exposition formats' own content types; scrape() picks its writer by matching on these strings.
    static final String PROMETHEUS_TEXT = "text/plain; version=0.0.4; charset=utf-8";
    static final String OPEN_METRICS_TEXT = "application/openmetrics-text; version=1.0.0; charset=utf-8";
    private static final String TEXT_PLAIN = "text/plain; charset=utf-8";
    private static final String APPLICATION_JSON = "application/json";
    private static final int THREADS = 2;
    /**
     * Seconds the JDK's server gives a client to send a request, and to take a response, before it closes the
     * connection. It writes a response with a blocking write on one of this server's two threads: without a limit a
     * client that sends {@code GET /metrics} and never reads holds that thread forever, and two such clients take
     * {@code /readyz} down, so the pod is restarted by its own probe. The JDK reads these properties once per JVM, when
     * its first HTTP server starts; a value set on the command line wins.
     */
    static final String EXCHANGE_SECONDS = "10";

    static {
        if (System.getProperty("sun.net.httpserver.maxReqTime") == null) {
            System.setProperty("sun.net.httpserver.maxReqTime", EXCHANGE_SECONDS);
        }
        if (System.getProperty("sun.net.httpserver.maxRspTime") == null) {
            System.setProperty("sun.net.httpserver.maxRspTime", EXCHANGE_SECONDS);
        }
    }

    private final String bindAddress;
    private final int requestedPort;
    private final PrometheusMeterRegistry registry;
    private final Map<String, Supplier<Readiness>> readinessChecks;
    private final BooleanSupplier live;

    private HttpServer server;
    private ExecutorService executor;

    public ManagementServer(String bindAddress, int port, PrometheusMeterRegistry registry,
                            Map<String, Supplier<Readiness>> readinessChecks) {
        this(bindAddress, port, registry, readinessChecks, () -> true);
    }

    public ManagementServer(String bindAddress, int port, PrometheusMeterRegistry registry,
                            Map<String, Supplier<Readiness>> readinessChecks, BooleanSupplier live) {
        this.bindAddress = Objects.requireNonNull(bindAddress, "bindAddress");
        this.requestedPort = port;
        this.registry = Objects.requireNonNull(registry, "registry");
        // Sorted so /readyz lists checks in the same order on every call.
        this.readinessChecks = new TreeMap<>(Objects.requireNonNull(readinessChecks, "readinessChecks"));
        this.live = Objects.requireNonNull(live, "live");
    }

    public synchronized void start() throws IOException {
        if (server != null) {
            throw new IllegalStateException("already started");
        }
        HttpServer created = HttpServer.create(new InetSocketAddress(bindAddress, requestedPort), 16);
        // One context for everything: the JDK matches contexts by prefix, which would serve /metricsfoo.
        created.createContext("/", this::handle);
        executor = Executors.newFixedThreadPool(THREADS, daemonThreads());
        created.setExecutor(executor);
        created.start();
        server = created;
        LOG.info("Management endpoints listening on {}:{}", bindAddress, port());
    }

    /** The bound port, which differs from the requested one when that was 0. */
    public synchronized int port() {
        if (server == null) {
            throw new IllegalStateException("not started");
        }
        return server.getAddress().getPort();
    }

    @Override
    public synchronized void close() {
        if (server == null) {
            return;
        }
        // A delay above 0 makes JDK 17's stop() wait the whole delay even when no exchange is open.
        server.stop(0);
        executor.shutdownNow();
        try {
            executor.awaitTermination(5, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        server = null;
        executor = null;
    }

    private void handle(HttpExchange exchange) {
        try {
            route(exchange);
        } catch (IOException | UncheckedIOException e) {
            // Almost always a scraper that hung up mid-response.
            LOG.debug("Management response not delivered: {}", e.toString());
        } catch (RuntimeException e) {
            LOG.warn("Management endpoint {} failed", exchange.getRequestURI().getPath(), e);
            tryRespond(exchange, 500, bytes("internal error\n"));
        } finally {
            exchange.close();
        }
    }

    private void route(HttpExchange exchange) throws IOException {
        Endpoint endpoint = switch (exchange.getRequestURI().getPath()) {
            case "/metrics" -> this::metrics;
            // /healthz is the documented one; /livez answers the same for those who follow the Kubernetes naming.
            case "/healthz", "/livez" -> this::healthz;
            case "/readyz" -> this::readyz;
            default -> null;
        };
        if (endpoint == null) {
            respond(exchange, 404, TEXT_PLAIN, bytes("not found\n"));
            return;
        }
        String method = exchange.getRequestMethod();
        if (!method.equals("GET") && !method.equals("HEAD")) {
            exchange.getResponseHeaders().set("Allow", "GET, HEAD");
            respond(exchange, 405, TEXT_PLAIN, bytes("method not allowed\n"));
            return;
        }
        endpoint.serve(exchange);
    }

    private void metrics(HttpExchange exchange) throws IOException {
        String accept = exchange.getRequestHeaders().getFirst("Accept");
        String contentType = accept != null && accept.contains("application/openmetrics-text")
                ? OPEN_METRICS_TEXT
                : PROMETHEUS_TEXT;
        ByteArrayOutputStream body = new ByteArrayOutputStream(16 * 1024);
        registry.scrape(body, contentType);
        respond(exchange, 200, contentType, body.toByteArray());
    }

    private void healthz(HttpExchange exchange) throws IOException {
        if (live.getAsBoolean()) {
            respond(exchange, 200, TEXT_PLAIN, bytes("ok\n"));
        } else {
            respond(exchange, 503, TEXT_PLAIN, bytes("not live\n"));
        }
    }

    private void readyz(HttpExchange exchange) throws IOException {
        Map<String, Readiness> results = new LinkedHashMap<>();
        List<String> failing = new ArrayList<>();
        readinessChecks.forEach((name, check) -> {
            Readiness result = evaluate(name, check);
            results.put(name, result);
            if (!result.ready()) {
                failing.add(name);
            }
        });
        Map<String, Object> body = new LinkedHashMap<>();
        body.put("ready", failing.isEmpty());
        if (!failing.isEmpty()) {
            body.put("failing", failing);
        }
        body.put("checks", results);
        respond(exchange, failing.isEmpty() ? 200 : 503, APPLICATION_JSON, JSON.writeValueAsBytes(body));
    }

    private static Readiness evaluate(String name, Supplier<Readiness> check) {
        try {
            Readiness result = check.get();
            return result != null ? result : Readiness.notReady("check returned no result");
        } catch (RuntimeException e) {
            // The class name only at WARN and in the response: messages can carry credentials from configuration.
            LOG.warn("Readiness check {} threw {}", name, e.getClass().getName());
            LOG.debug("Readiness check {} failure", name, e);
            return Readiness.notReady("check failed: " + e.getClass().getSimpleName());
        }
    }

    private static void respond(HttpExchange exchange, int status, String contentType, byte[] body) throws IOException {
        exchange.getResponseHeaders().set("Content-Type", contentType);
        exchange.getResponseHeaders().set("Cache-Control", "no-store");
        if (exchange.getRequestMethod().equals("HEAD")) {
            exchange.sendResponseHeaders(status, -1);
            return;
        }
        exchange.sendResponseHeaders(status, body.length == 0 ? -1 : body.length);
        try (OutputStream out = exchange.getResponseBody()) {
            out.write(body);
        }
    }

    private static void tryRespond(HttpExchange exchange, int status, byte[] body) {
        try {
            respond(exchange, status, TEXT_PLAIN, body);
        } catch (IOException | RuntimeException ignored) {
            // Headers were already sent, or the client is gone; closing the exchange is all that is left.
        }
    }

    private static byte[] bytes(String text) {
        return text.getBytes(StandardCharsets.UTF_8);
    }

    private static ThreadFactory daemonThreads() {
        AtomicInteger counter = new AtomicInteger();
        return runnable -> {
            Thread thread = new Thread(runnable, "sluice-management-" + counter.incrementAndGet());
            thread.setDaemon(true);
            return thread;
        };
    }

    @FunctionalInterface
    private interface Endpoint {
        void serve(HttpExchange exchange) throws IOException;
    }
}
