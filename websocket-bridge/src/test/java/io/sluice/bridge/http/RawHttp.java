package io.sluice.bridge.http;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;

/**
 * An HTTP/1.1 client on a bare socket, for what well-behaved clients do not send: pipelined requests, bodies larger
 * than announced, endless chunked bodies. Reads answers with a Content-Length (all the bridge's routes send one).
 */
final class RawHttp implements AutoCloseable {

    record Response(int status, Map<String, String> headers, String body) {
        String header(String name) {
            return headers.get(name.toLowerCase(Locale.ROOT));
        }
    }

    private final Socket socket;
    private final InputStream in;

    RawHttp(int port) throws IOException {
        socket = new Socket("127.0.0.1", port);
        socket.setSoTimeout(20_000);
        in = socket.getInputStream();
    }

    static String request(String method, String target, Map<String, String> headers, String body) {
        StringBuilder r = new StringBuilder(method + " " + target + " HTTP/1.1\r\nHost: 127.0.0.1\r\n");
        headers.forEach((name, value) -> r.append(name).append(": ").append(value).append("\r\n"));
        if (body != null) {
            r.append("Content-Length: ").append(body.getBytes(StandardCharsets.UTF_8).length).append("\r\n");
        }
        return r.append("\r\n").append(body == null ? "" : body).toString();
    }

    void send(String text) throws IOException {
        send(text.getBytes(StandardCharsets.UTF_8));
    }

    void send(byte[] bytes) throws IOException {
        socket.getOutputStream().write(bytes);
        socket.getOutputStream().flush();
    }

    Response read() throws IOException {
        String head = line();
        if (head == null) {
            throw new IOException("connection closed before an answer");
        }
        int status = Integer.parseInt(head.split(" ")[1]);
        Map<String, String> headers = new LinkedHashMap<>();
        for (String line = line(); line != null && !line.isEmpty(); line = line()) {
            int colon = line.indexOf(':');
            headers.merge(line.substring(0, colon).strip().toLowerCase(Locale.ROOT), line.substring(colon + 1).strip(), (a, b) -> a + ", " + b);
        }
        int length = Integer.parseInt(headers.getOrDefault("content-length", "0"));
        byte[] body = in.readNBytes(length);
        if (status == 100) {
            return read();
        }
        return new Response(status, headers, new String(body, StandardCharsets.UTF_8));
    }

    /** Whether the server closed the connection (end of stream or reset) within {@code wait}, reading what comes. */
    boolean closedWithin(Duration wait) throws IOException {
        long end = System.nanoTime() + wait.toNanos();
        socket.setSoTimeout(200);
        byte[] buffer = new byte[8192];
        while (System.nanoTime() < end) {
            try {
                if (in.read(buffer) < 0) {
                    return true;
                }
            }
            catch (SocketTimeoutException e) {
                // still open
            }
            catch (IOException e) {
                return true;
            }
        }
        return false;
    }

    private String line() throws IOException {
        ByteArrayOutputStream line = new ByteArrayOutputStream();
        for (int b = in.read(); b >= 0; b = in.read()) {
            if (b == '\n') {
                String s = line.toString(StandardCharsets.ISO_8859_1);
                return s.endsWith("\r") ? s.substring(0, s.length() - 1) : s;
            }
            line.write(b);
        }
        return line.size() == 0 ? null : line.toString(StandardCharsets.ISO_8859_1);
    }

    @Override
    public void close() throws IOException {
        socket.close();
    }
}
