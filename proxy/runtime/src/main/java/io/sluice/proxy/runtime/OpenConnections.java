package io.sluice.proxy.runtime;

import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;

/**
 * The proxy's open client connections, so that shutdown can drain them (each stops reading requests and closes once
 * it has answered those it already read, and whatever is still open when the time is up is closed anyway), and so that
 * the bytes queued towards all clients together stay within one budget ({@link #enforceBudget}).
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

    /** Bytes written towards clients that they have not taken yet, over every open connection; any thread. */
    public long queuedTowardsClients() {
        long total = 0;
        for (ProxyConnection connection : open) {
            total += connection.queuedTowardsClient();
        }
        return total;
    }

    /**
     * Keeps the bytes queued towards clients together within {@code budget}: while the total is over it, connections
     * with more than {@code perConnectionAllowance} queued stop reading from their brokers, so the queues that are
     * behind stop growing while those that keep up carry on; under it, every connection reads again. Each connection
     * alone is already bounded by its write-buffer high-water mark and one response (see {@link ProxyConnection#updateReads});
     * this bounds their sum, which clients that read slowly could otherwise push past the heap together. Called
     * periodically from any thread.
     *
     * @return the total that was found
     */
    public long enforceBudget(long budget, long perConnectionAllowance) {
        long total = queuedTowardsClients();
        boolean over = total > budget;
        for (ProxyConnection connection : open) {
            connection.throttle(over && connection.queuedTowardsClient() > perConnectionAllowance);
        }
        return total;
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
        // Not the set's size: a channel's close future wakes this thread before it runs the listener that takes the
        // connection out of the set, so a connection that has just closed would still count as busy.
        List<ProxyConnection> busy = open.stream().filter(connection -> !connection.frontend().closeFuture().isDone()).toList();
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
