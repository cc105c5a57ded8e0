package io.sluice.testkit;

import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicInteger;

import javax.net.ssl.SSLContext;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import com.sun.net.httpserver.HttpsConfigurator;
import com.sun.net.httpserver.HttpsServer;

/**
 * The server half of an in-process stand-in for an HTTP service (Vault's Transit API, a schema registry, an identity
 * provider's JWKS): the JDK's HTTP server on 127.0.0.1, plain or TLS, on a port of its own that {@link #restart()}
 * reuses after a {@link #stop()}; a count of requests per route and in all; a latency added to every answer; JSON
 * answers written the one way. A subclass is the protocol only: it answers each exchange in {@link #handle}, calling
 * {@link #count} with the route it served. Stand-ins share this so that start, stop, restart and faults behave alike
 * in every test that fakes a service.
 */
public abstract class HttpStandIn implements AutoCloseable {

    static {
        // Real services send with TCP_NODELAY; without it the JDK server's separate header and body writes meet the
        // client's delayed ACK and every request takes some 40 ms.
        if (System.getProperty("sun.net.httpserver.nodelay") == null) {
            System.setProperty("sun.net.httpserver.nodelay", "true");
        }
    }

    private final SSLContext tls;
    private final Map<String, AtomicInteger> requests = new ConcurrentHashMap<>();
    private final AtomicInteger totalRequests = new AtomicInteger();
    private final ExecutorService executor;
    private volatile Duration latency = Duration.ZERO;
    private volatile HttpServer server;
    private int port;

    /**
     * @param threadName what its request threads are called (daemon threads: a stand-in never keeps a JVM alive)
     * @param tls        the server context for https, or null for plain http
     */
    protected HttpStandIn(String threadName, SSLContext tls) {
        this.tls = tls;
        this.executor = Executors.newCachedThreadPool(r -> {
            Thread t = new Thread(r, threadName);
            t.setDaemon(true);
            return t;
        });
    }

    /** Answers one request; the exchange is closed afterwards. Runs on the stand-in's threads, several at once. */
    protected abstract void handle(HttpExchange exchange) throws IOException;

    /** Starts listening on {@code wantedPort}, 0 for any free one. */
    protected final void listen(int wantedPort) throws IOException {
        InetSocketAddress address = new InetSocketAddress("127.0.0.1", wantedPort);
        HttpServer s;
        if (tls != null) {
            HttpsServer https = HttpsServer.create(address, 50);
            https.setHttpsConfigurator(new HttpsConfigurator(tls));
            s = https;
        } else {
            s = HttpServer.create(address, 50);
        }
        s.createContext("/", this::dispatch);
        s.setExecutor(executor);
        s.start();
        port = s.getAddress().getPort();
        server = s;
    }

    private void dispatch(HttpExchange exchange) throws IOException {
        try (exchange) {
            totalRequests.incrementAndGet();
            pause(latency);
            handle(exchange);
        }
    }

    /** {@code http://127.0.0.1:port}, or https. */
    public String url() {
        return (tls != null ? "https" : "http") + "://127.0.0.1:" + port;
    }

    public int port() {
        return port;
    }

    /** Answers each request this much later, like a service across a network or an overloaded one. */
    public void latency(Duration latency) {
        this.latency = latency;
    }

    /** Counts one request served by {@code route}, the subclass's name for what it did. */
    protected final void count(String route) {
        requests.computeIfAbsent(route, r -> new AtomicInteger()).incrementAndGet();
    }

    /** How many requests {@code route} served. */
    public int requests(String route) {
        AtomicInteger n = requests.get(route);
        return n == null ? 0 : n.get();
    }

    /** Every request received, whatever became of it. */
    public int requests() {
        return totalRequests.get();
    }

    /** Stops listening; what the stand-in holds is kept for {@link #restart()}. */
    public void stop() {
        HttpServer s = server;
        if (s != null) {
            s.stop(0);
            server = null;
        }
    }

    /** Listens again on the same port. */
    public void restart() throws IOException {
        listen(port);
    }

    @Override
    public void close() {
        stop();
        executor.shutdownNow();
    }

    /** Writes a whole answer: this content type, and the body (none for an empty one, as a 204 has). */
    protected static void send(HttpExchange exchange, int status, String contentType, byte[] body) throws IOException {
        exchange.getResponseHeaders().set("Content-Type", contentType);
        exchange.sendResponseHeaders(status, body.length == 0 ? -1 : body.length);
        if (body.length > 0) {
            try (OutputStream out = exchange.getResponseBody()) {
                out.write(body);
            }
        }
    }

    /** Sleeps on a request thread, for the latencies and slow answers stand-ins play. */
    protected static void pause(Duration delay) {
        if (delay.isZero() || delay.isNegative()) {
            return;
        }
        try {
            Thread.sleep(delay.toMillis());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
