package io.sluice.testkit;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.time.Duration;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Forwards TCP connections from a loopback port to a server (Vault, a Kafka broker's bootstrap address), so that a
 * test can cut it off and bring it back, real Vault included: {@link #stop()} closes the port and every connection
 * through it, {@link #start()} opens the same port again. {@link #latency} makes the server slow: what it sends back is
 * held that long before it is passed on, as across a congested network or from an overloaded server.
 */
public final class TcpRelay implements AutoCloseable {

    private final String targetHost;
    private final int targetPort;
    private final Set<Socket> open = ConcurrentHashMap.newKeySet();
    private volatile ServerSocket server;
    private volatile Duration latency = Duration.ZERO;
    private int port;

    public TcpRelay(String targetHost, int targetPort) throws IOException {
        this.targetHost = targetHost;
        this.targetPort = targetPort;
        start();
    }

    public int port() {
        return port;
    }

    /** Holds each chunk the server sends back this long before passing it on (zero: at once). Applies to open connections too. */
    public void latency(Duration latency) {
        this.latency = latency;
    }

    public synchronized void start() throws IOException {
        ServerSocket s = new ServerSocket();
        s.setReuseAddress(true);
        s.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), port));
        port = s.getLocalPort();
        server = s;
        Thread acceptor = new Thread(() -> accept(s), "relay-accept-" + port);
        acceptor.setDaemon(true);
        acceptor.start();
    }

    public synchronized void stop() {
        ServerSocket s = server;
        server = null;
        if (s != null) {
            closeQuietly(s);
        }
        open.forEach(TcpRelay::closeQuietly);
        open.clear();
    }

    @Override
    public void close() {
        stop();
    }

    private void accept(ServerSocket s) {
        while (!s.isClosed()) {
            try {
                Socket client = s.accept();
                Socket upstream;
                try {
                    upstream = new Socket(targetHost, targetPort);
                }
                catch (IOException e) {
                    closeQuietly(client);
                    continue;
                }
                synchronized (this) {
                    // stop() may have run between accept() and here: it could not close what was not yet in `open`.
                    if (server != s) {
                        closeQuietly(client);
                        closeQuietly(upstream);
                        return;
                    }
                    open.add(client);
                    open.add(upstream);
                }
                pump(client, upstream, false);
                pump(upstream, client, true);
            }
            catch (IOException e) {
                return;
            }
        }
    }

    private void pump(Socket from, Socket to, boolean delayed) {
        Thread t = new Thread(() -> {
            byte[] buffer = new byte[16384];
            try (InputStream in = from.getInputStream(); OutputStream out = to.getOutputStream()) {
                int n;
                while ((n = in.read(buffer)) >= 0) {
                    Duration delay = latency;
                    if (delayed && !delay.isZero()) {
                        Thread.sleep(delay.toMillis());
                    }
                    out.write(buffer, 0, n);
                    out.flush();
                }
            }
            catch (IOException e) {
                // the other side or stop() closed it
            }
            catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            finally {
                closeQuietly(from);
                closeQuietly(to);
                open.remove(from);
                open.remove(to);
            }
        }, "relay-pump");
        t.setDaemon(true);
        t.start();
    }

    private static void closeQuietly(AutoCloseable c) {
        try {
            c.close();
        }
        catch (Exception e) {
            // closing anyway
        }
    }
}
