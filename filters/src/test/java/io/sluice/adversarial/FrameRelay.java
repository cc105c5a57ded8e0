package io.sluice.adversarial;

import java.io.DataInputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Consumer;

/**
 * A loopback TCP relay in front of the proxy's ports that hands every client-to-proxy Kafka frame to a listener as it
 * passes, byte for byte as kafka-clients wrote it. The proxy advertises the relay's ports as its brokers' addresses, so
 * every connection a client opens (bootstrap and per broker) goes through here.
 */
final class FrameRelay implements AutoCloseable {

    /** One frame a client sent, with its size prefix, and whether it came before the connection authenticated. */
    record Frame(byte[] bytes, boolean beforeAuthentication) {
    }

    private static final short SASL_AUTHENTICATE = 36;
    private static final int MAX_CAPTURED_FRAME = 16 * 1024 * 1024;

    private final List<ServerSocket> listeners = new ArrayList<>();
    private final List<Socket> sockets = new CopyOnWriteArrayList<>();
    private final Consumer<Frame> frames;
    private volatile boolean closed;

    /**
     * @param firstPort relay ports start here, one per target port
     * @param targetPorts the proxy ports, in the same order
     */
    FrameRelay(int firstPort, List<Integer> targetPorts, Consumer<Frame> frames) throws IOException {
        this.frames = frames;
        for (int i = 0; i < targetPorts.size(); i++) {
            ServerSocket listener = new ServerSocket(firstPort + i, 50, InetAddress.getLoopbackAddress());
            listeners.add(listener);
            int target = targetPorts.get(i);
            daemon("relay-accept-" + listener.getLocalPort(), () -> accept(listener, target));
        }
    }

    private void accept(ServerSocket listener, int targetPort) {
        while (!closed) {
            try {
                Socket client = listener.accept();
                Socket proxy = new Socket(InetAddress.getLoopbackAddress(), targetPort);
                sockets.add(client);
                sockets.add(proxy);
                daemon("relay-up", () -> relayFrames(client, proxy));
                daemon("relay-down", () -> copy(proxy, client));
            } catch (IOException e) {
                if (!closed) {
                    throw new IllegalStateException("relay on " + listener.getLocalPort() + " failed", e);
                }
            }
        }
    }

    /** Client to proxy: frame by frame, so each can be recorded whole. */
    private void relayFrames(Socket from, Socket to) {
        boolean authenticated = false;
        try (DataInputStream in = new DataInputStream(from.getInputStream())) {
            OutputStream out = to.getOutputStream();
            while (true) {
                int size = in.readInt();
                if (size < 2 || size > MAX_CAPTURED_FRAME) {
                    throw new IOException("frame of " + size + " bytes from a client");
                }
                byte[] frame = new byte[4 + size];
                frame[0] = (byte) (size >>> 24);
                frame[1] = (byte) (size >>> 16);
                frame[2] = (byte) (size >>> 8);
                frame[3] = (byte) size;
                in.readFully(frame, 4, size);
                short apiKey = (short) (((frame[4] & 0xff) << 8) | (frame[5] & 0xff));
                frames.accept(new Frame(frame, !authenticated));
                authenticated |= apiKey == SASL_AUTHENTICATE;
                out.write(frame);
                out.flush();
            }
        } catch (EOFException e) {
            // the client closed
        } catch (IOException e) {
            // either side closed
        } finally {
            closeQuietly(from);
            closeQuietly(to);
        }
    }

    private static void copy(Socket from, Socket to) {
        try (InputStream in = from.getInputStream()) {
            in.transferTo(to.getOutputStream());
        } catch (IOException e) {
            // either side closed
        } finally {
            closeQuietly(from);
            closeQuietly(to);
        }
    }

    private static void daemon(String name, Runnable body) {
        Thread thread = new Thread(body, name);
        thread.setDaemon(true);
        thread.start();
    }

    private static void closeQuietly(AutoCloseable c) {
        try {
            c.close();
        } catch (Exception e) {
            // closing anyway
        }
    }

    @Override
    public void close() {
        closed = true;
        listeners.forEach(FrameRelay::closeQuietly);
        sockets.forEach(FrameRelay::closeQuietly);
    }
}
