package io.sluice.bridge.server;

import java.io.DataInputStream;
import java.io.EOFException;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.embedded.EmbeddedChannel;
import io.netty.handler.codec.http2.DefaultHttp2FrameWriter;
import io.netty.handler.codec.http2.DefaultHttp2Headers;
import io.netty.handler.codec.http2.DefaultHttp2HeadersDecoder;
import io.netty.handler.codec.http2.Http2CodecUtil;
import io.netty.handler.codec.http2.Http2Headers;
import io.netty.handler.codec.http2.Http2Settings;

/**
 * A bare HTTP/2 client over a plain socket (h2c by prior knowledge), for what well-behaved clients never do: never
 * sending WINDOW_UPDATE, not reading the socket, opening streams past the limit, resetting them at once. Frames are
 * encoded by Netty's frame writer into bytes this class writes itself; frames read are parsed by hand (9-byte header).
 */
final class RawH2 implements AutoCloseable {

    static final int DATA = 0, HEADERS = 1, RST_STREAM = 3, SETTINGS = 4, GOAWAY = 7, WINDOW_UPDATE = 8;

    /** @param headers a HEADERS frame's, decoded as read (HPACK is stateful); null for other frames */
    record Frame(int type, int flags, int stream, byte[] payload, Http2Headers headers) {
        boolean endStream() {
            return (flags & 1) != 0;
        }

        /** RST_STREAM's and GOAWAY's error code. */
        long errorCode() {
            int at = type == GOAWAY ? 4 : 0;
            return Unpooled.wrappedBuffer(payload).getUnsignedInt(at);
        }

        String text() {
            return new String(payload, StandardCharsets.UTF_8);
        }
    }

    private final Socket socket;
    private final DataInputStream in;
    private final EmbeddedChannel sink = new EmbeddedChannel(new ChannelInboundHandlerAdapter());
    private final ChannelHandlerContext ctx = sink.pipeline().firstContext();
    private final DefaultHttp2FrameWriter writer = new DefaultHttp2FrameWriter();
    private final DefaultHttp2HeadersDecoder decoder = new DefaultHttp2HeadersDecoder(false);
    private final java.util.Map<Integer, Long> windows = new java.util.HashMap<>();
    private final java.util.Set<Integer> reset = new java.util.HashSet<>();
    private boolean ended;
    private boolean corked;

    private RawH2(Socket socket) throws IOException {
        this.socket = socket;
        this.in = new DataInputStream(socket.getInputStream());
    }

    /** Connects and sends the preface and an empty SETTINGS (the defaults: 65535-byte windows). */
    static RawH2 connect(int port, int receiveBufferBytes) throws IOException {
        Socket socket = new Socket();
        if (receiveBufferBytes > 0) {
            socket.setReceiveBufferSize(receiveBufferBytes);
        }
        socket.connect(new InetSocketAddress("127.0.0.1", port));
        socket.setSoTimeout(30_000);
        RawH2 client = new RawH2(socket);
        client.raw(Http2CodecUtil.connectionPrefaceBuf());
        client.writer.writeSettings(client.ctx, new Http2Settings(), client.ctx.newPromise());
        client.send();
        return client;
    }

    static Http2Headers get(String pathAndQuery, String token) {
        Http2Headers headers = new DefaultHttp2Headers().method("GET").scheme("http").authority("127.0.0.1").path(pathAndQuery);
        if (token != null) {
            headers.add("authorization", "Bearer " + token);
        }
        return headers;
    }

    synchronized void headers(int stream, Http2Headers headers, boolean endStream) throws IOException {
        writer.writeHeaders(ctx, stream, headers, 0, endStream, ctx.newPromise());
        send();
    }

    synchronized void data(int stream, ByteBuf data, boolean endStream) throws IOException {
        writer.writeData(ctx, stream, data, 0, endStream, ctx.newPromise());
        send();
    }

    void rst(int stream, long code) throws IOException {
        writer.writeRstStream(ctx, stream, code, ctx.newPromise());
        send();
    }

    private void raw(ByteBuf bytes) throws IOException {
        socket.getOutputStream().write(ByteBufUtil.getBytes(bytes));
    }

    /** Frames written until {@link #uncork()} go out in one socket write: the server reads them together. */
    void cork() {
        corked = true;
    }

    void uncork() throws IOException {
        corked = false;
        send();
    }

    static Http2Headers post(String pathAndQuery, String token, String contentType, long contentLength) {
        Http2Headers headers = new DefaultHttp2Headers().method("POST").scheme("http").authority("127.0.0.1").path(pathAndQuery)
                .add("content-type", contentType);
        if (contentLength >= 0) {
            headers.add("content-length", Long.toString(contentLength));
        }
        if (token != null) {
            headers.add("authorization", "Bearer " + token);
        }
        return headers;
    }

    /**
     * Reads frames in the background from now on, keeping the flow-control windows the server grants, for
     * {@link #sendWithinWindows}; every frame read is also added to the returned queue, and a frame of type -1 marks
     * the end of the connection.
     */
    java.util.concurrent.BlockingQueue<Frame> readInBackground() {
        java.util.concurrent.BlockingQueue<Frame> frames = new java.util.concurrent.LinkedBlockingQueue<>();
        Thread reader = new Thread(() -> {
            try {
                for (Frame f = next(); f != null; f = next()) {
                    synchronized (windows) {
                        if (f.type() == WINDOW_UPDATE) {
                            windows.merge(f.stream(), Unpooled.wrappedBuffer(f.payload()).getInt(0) & 0x7fffffffL, Long::sum);
                        }
                        else if (f.type() == RST_STREAM) {
                            reset.add(f.stream());
                        }
                        windows.notifyAll();
                    }
                    frames.add(f);
                }
            }
            catch (Exception e) {
                // Closed.
            }
            synchronized (windows) {
                ended = true;
                windows.notifyAll();
            }
            frames.add(new Frame(-1, 0, 0, new byte[0], null));
        }, "h2-frames");
        reader.setDaemon(true);
        reader.start();
        return frames;
    }

    /**
     * Sends {@code bytes} of body on {@code stream} as DATA frames no larger than the default SETTINGS_MAX_FRAME_SIZE,
     * each within the stream's and the connection's windows as the server grants them (needs
     * {@link #readInBackground}), without END_STREAM. Stops early when the stream is reset, the connection ends or no
     * window comes for {@code patienceMillis}.
     *
     * @return the bytes sent
     */
    long sendWithinWindows(int stream, long bytes, long patienceMillis) throws IOException, InterruptedException {
        long sent = 0;
        byte[] chunk = new byte[Http2CodecUtil.DEFAULT_MAX_FRAME_SIZE];
        while (sent < bytes) {
            int n;
            synchronized (windows) {
                long waitUntil = System.currentTimeMillis() + patienceMillis;
                while (!ended && !reset.contains(stream) && window(stream) <= 0 && System.currentTimeMillis() < waitUntil) {
                    windows.wait(Math.max(1, waitUntil - System.currentTimeMillis()));
                }
                if (ended || reset.contains(stream) || window(stream) <= 0) {
                    return sent;
                }
                n = (int) Math.min(Math.min(chunk.length, window(stream)), bytes - sent);
                windows.merge(0, (long) -n, Long::sum);
                windows.merge(stream, (long) -n, Long::sum);
            }
            try {
                data(stream, Unpooled.wrappedBuffer(chunk, 0, n), false);
            }
            catch (java.net.SocketException e) {
                return sent;
            }
            sent += n;
        }
        return sent;
    }

    // Event loop of neither side: the windows the server granted (stream 0: the connection's), under their own lock.
    private long window(int stream) {
        return Math.min(windows.computeIfAbsent(0, s -> (long) Http2CodecUtil.DEFAULT_WINDOW_SIZE),
                windows.computeIfAbsent(stream, s -> (long) Http2CodecUtil.DEFAULT_WINDOW_SIZE));
    }

    private void send() throws IOException {
        if (corked) {
            return;
        }
        sink.flush();
        for (Object out = sink.readOutbound(); out != null; out = sink.readOutbound()) {
            ByteBuf buf = (ByteBuf) out;
            try {
                socket.getOutputStream().write(ByteBufUtil.getBytes(buf));
            }
            finally {
                buf.release();
            }
        }
        socket.getOutputStream().flush();
    }

    /** The next frame, or null at the end of the connection (a reset counts as the end). */
    Frame next() throws IOException {
        byte[] header = new byte[9];
        try {
            in.readFully(header);
        }
        catch (EOFException | java.net.SocketException e) {
            return null;
        }
        int length = ((header[0] & 0xff) << 16) | ((header[1] & 0xff) << 8) | (header[2] & 0xff);
        byte[] payload = new byte[length];
        in.readFully(payload);
        int stream = ((header[5] & 0x7f) << 24) | ((header[6] & 0xff) << 16) | ((header[7] & 0xff) << 8) | (header[8] & 0xff);
        int type = header[3] & 0xff;
        Http2Headers headers = null;
        if (type == HEADERS) {
            try {
                headers = decoder.decodeHeaders(stream, Unpooled.wrappedBuffer(payload));
            }
            catch (Exception e) {
                throw new IOException(e);
            }
        }
        return new Frame(type, header[4] & 0xff, stream, payload, headers);
    }

    /** Everything the server sends until it closes, as text (for an answer that is not HTTP/2). */
    String rest() throws IOException {
        java.io.ByteArrayOutputStream all = new java.io.ByteArrayOutputStream();
        byte[] buffer = new byte[4096];
        try {
            for (int n = in.read(buffer); n >= 0; n = in.read(buffer)) {
                all.write(buffer, 0, n);
            }
        }
        catch (java.net.SocketException e) {
            // Reset after the answer: what came before it is what counts.
        }
        return all.toString(StandardCharsets.ISO_8859_1);
    }

    @Override
    public void close() throws IOException {
        socket.close();
        sink.finishAndReleaseAll();
    }
}
