package io.sluice.testkit;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A round-robin TCP front for several servers (bridge nodes), as a load balancer without stickiness: each new
 * connection goes to the next target in turn, and a target that refuses the connection (a node that was stopped) is
 * skipped for the next one, so a client reconnecting after its node died lands on a live one. Bytes are relayed as
 * they are; a side closing closes the other. Unlike {@link TcpRelay} it has one fixed set of targets and is not
 * stopped and restarted: the test stops the servers behind it.
 */
public final class RoundRobinRelay implements AutoCloseable {

    private static final int CONNECT_TIMEOUT_MILLIS = 2_000;

    private final List<InetSocketAddress> targets;
    private final AtomicInteger next = new AtomicInteger();
    private final Set<Socket> open = ConcurrentHashMap.newKeySet();
    private final ServerSocket server;

    /** Connections the kernel queues before they are accepted (net.core.somaxconn caps it, 4096 by default). */
    static final int ACCEPT_BACKLOG = 4096;

    public RoundRobinRelay(List<InetSocketAddress> targets) throws IOException {
        if (targets.isEmpty()) {
            throw new IllegalArgumentException("a round-robin front needs at least one target");
        }
        this.targets = List.copyOf(targets);
        // A reconnect storm is thousands of connects at once: with Java's default backlog of 50 the kernel can drop SYNs
        // while the one accepting thread catches up, and a dropped client retries only after the initial SYN timeout
        // (1 s): the front, not the nodes, would then set the resubscribe time being measured.
        this.server = new ServerSocket(0, ACCEPT_BACKLOG, InetAddress.getLoopbackAddress());
        Thread acceptor = new Thread(this::accept, "round-robin-accept-" + server.getLocalPort());
        acceptor.setDaemon(true);
        acceptor.start();
    }

    public int port() {
        return server.getLocalPort();
    }

    private void accept() {
        while (!server.isClosed()) {
            Socket client;
            try {
                client = server.accept();
            } catch (IOException closed) {
                return;
            }
            Socket upstream = connectToNextLive();
            if (upstream == null) {
                closeQuietly(client);
                continue;
            }
            open.add(client);
            open.add(upstream);
            if (server.isClosed()) {
                // close() may have run before these were in `open`.
                closeQuietly(client);
                closeQuietly(upstream);
                return;
            }
            pump(client, upstream);
            pump(upstream, client);
        }
    }

    /** The next target in turn that accepts a connection, or null when none does. */
    private Socket connectToNextLive() {
        int first = Math.floorMod(next.getAndIncrement(), targets.size());
        for (int i = 0; i < targets.size(); i++) {
            InetSocketAddress target = targets.get((first + i) % targets.size());
            Socket upstream = new Socket();
            try {
                upstream.connect(target, CONNECT_TIMEOUT_MILLIS);
                return upstream;
            } catch (IOException refused) {
                closeQuietly(upstream);
            }
        }
        return null;
    }

    private void pump(Socket from, Socket to) {
        Thread t = new Thread(() -> {
            try (InputStream in = from.getInputStream(); OutputStream out = to.getOutputStream()) {
                // A socket's stream is unbuffered: every read is written on at once.
                in.transferTo(out);
            } catch (IOException e) {
                // the other side or close() closed it
            } finally {
                closeQuietly(from);
                closeQuietly(to);
                open.remove(from);
                open.remove(to);
            }
        }, "round-robin-pump");
        t.setDaemon(true);
        t.start();
    }

    @Override
    public void close() {
        closeQuietly(server);
        open.forEach(RoundRobinRelay::closeQuietly);
        open.clear();
    }

    private static void closeQuietly(AutoCloseable c) {
        try {
            c.close();
        } catch (Exception e) {
            // closing anyway
        }
    }
}
