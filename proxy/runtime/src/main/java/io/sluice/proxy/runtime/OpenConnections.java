package io.sluice.proxy.runtime;

import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;

/**
 * The proxy's open client connections, so that shutdown can drain them: each stops reading requests and closes once
 * it has answered those it already read, and whatever is still open when the time is up is closed anyway.
 */
public final class OpenConnections {

    // Closing what is left after the drain only flushes and closes sockets.
    private static final Duration CLOSE_WAIT = Duration.ofSeconds(2);

    private final Set<ProxyConnection> open = ConcurrentHashMap.newKeySet();

    void add(ProxyConnection connection) {
        open.add(connection);
        connection.frontend().closeFuture().addListener(f -> open.remove(connection));
    }

    public int size() {
        return open.size();
    }

    /**
     * Drains every open connection, waiting at most {@code timeout}; blocks. New connections must already be refused
     * (listeners closed) when this is called.
     *
     * @return how many connections had to be closed with requests still unanswered
     */
    public int drain(Duration timeout) throws InterruptedException {
        List<ProxyConnection> draining = List.copyOf(open);
        draining.forEach(ProxyConnection::drain);
        long deadline = System.nanoTime() + timeout.toNanos();
        for (ProxyConnection connection : draining) {
            long left = deadline - System.nanoTime();
            if (left <= 0 || !connection.frontend().closeFuture().await(left, TimeUnit.NANOSECONDS)) {
                break;
            }
        }
        List<ProxyConnection> busy = List.copyOf(open);
        busy.forEach(connection -> connection.frontend().eventLoop().execute(
                () -> connection.close("network.shutdownTimeout passed with requests unanswered", null)));
        long closeDeadline = System.nanoTime() + CLOSE_WAIT.toNanos();
        for (ProxyConnection connection : busy) {
            long left = closeDeadline - System.nanoTime();
            if (left <= 0 || !connection.frontend().closeFuture().await(left, TimeUnit.NANOSECONDS)) {
                break;
            }
        }
        return busy.size();
    }
}
