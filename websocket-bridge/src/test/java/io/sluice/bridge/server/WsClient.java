package io.sluice.bridge.server;

import java.net.URI;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;

import io.netty.bootstrap.Bootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.SimpleChannelInboundHandler;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.socket.SocketChannel;
import io.netty.channel.socket.nio.NioSocketChannel;
import io.netty.handler.codec.http.DefaultHttpHeaders;
import io.netty.handler.codec.http.HttpClientCodec;
import io.netty.handler.codec.http.HttpObjectAggregator;
import io.netty.handler.codec.http.websocketx.CloseWebSocketFrame;
import io.netty.handler.codec.http.websocketx.TextWebSocketFrame;
import io.netty.handler.codec.http.websocketx.WebSocketClientProtocolConfig;
import io.netty.handler.codec.http.websocketx.WebSocketClientProtocolHandler;
import io.netty.handler.codec.http.websocketx.WebSocketFrame;
import io.netty.handler.codec.http.websocketx.WebSocketFrameAggregator;
import io.netty.handler.codec.http.websocketx.WebSocketVersion;
import io.netty.util.concurrent.DefaultThreadFactory;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A real WebSocket client for tests (Netty's client handshaker, RFC 6455 framing and masking). Every text message is
 * parsed and queued; reading can be paused to play a slow client, whose kernel receive buffer can be made small.
 */
final class WsClient implements AutoCloseable {

    // Strict: a frame with a key twice is not one message but two readings of it, depending on the parser.
    static final ObjectMapper JSON = new ObjectMapper()
            .enable(com.fasterxml.jackson.core.JsonParser.Feature.STRICT_DUPLICATE_DETECTION)
            .enable(com.fasterxml.jackson.databind.DeserializationFeature.FAIL_ON_TRAILING_TOKENS);
    private static final Duration WAIT = Duration.ofSeconds(30);
    private static final EventLoopGroup GROUP = new MultiThreadIoEventLoopGroup(2, new DefaultThreadFactory("ws-client", true),
            NioIoHandler.newFactory());

    private final BlockingQueue<JsonNode> received = new LinkedBlockingQueue<>();
    private final CompletableFuture<Integer> closeCode = new CompletableFuture<>();
    private volatile String closeReason;
    private final CompletableFuture<Void> handshake = new CompletableFuture<>();
    private Channel channel;
    private long nextId = 1;

    static WsClient connect(int port) {
        return connect(port, 0);
    }

    /** @param receiveBuffer SO_RCVBUF in bytes, 0 for the default */
    static WsClient connect(int port, int receiveBuffer) {
        return connect(port, receiveBuffer, null);
    }

    /** Over TLS (wss://), trusting what {@code tls} trusts. */
    static WsClient connectTls(int port, io.netty.handler.ssl.SslContext tls) {
        return connect(port, 0, tls);
    }

    private static WsClient connect(int port, int receiveBuffer, io.netty.handler.ssl.SslContext tls) {
        return connect(port, receiveBuffer, tls, null, java.util.Map.of());
    }

    /**
     * From a chosen loopback source address (127.0.0.2, ...), with extra upgrade headers ({@code Origin},
     * {@code X-Forwarded-For}). A refused upgrade throws: a {@code CompletionException} whose cause is Netty's
     * {@code WebSocketClientHandshakeException} (carrying the HTTP response) or, when the server closed the connection
     * without answering, an {@code IllegalStateException} or {@code SocketException}. Sends no {@code Origin} unless
     * {@code headers} has one.
     */
    static WsClient connectFrom(int port, String sourceAddress, java.util.Map<String, String> headers) {
        return connect(port, 0, null, sourceAddress, headers);
    }

    private static WsClient connect(int port, int receiveBuffer, io.netty.handler.ssl.SslContext tls, String sourceAddress,
                                    java.util.Map<String, String> headers) {
        WsClient client = new WsClient();
        DefaultHttpHeaders extra = new DefaultHttpHeaders();
        headers.forEach(extra::add);
        WebSocketClientProtocolConfig config = WebSocketClientProtocolConfig.newBuilder()
                .webSocketUri(URI.create((tls == null ? "ws" : "wss") + "://127.0.0.1:" + port + "/ws"))
                .version(WebSocketVersion.V13)
                .customHeaders(extra)
                // Only the headers a test chose: Netty would otherwise send an Origin of its own.
                .generateOriginHeader(sourceAddress == null)
                .maxFramePayloadLength(64 * 1024 * 1024)
                .handleCloseFrames(false)
                .build();
        Bootstrap bootstrap = new Bootstrap().group(GROUP).channel(NioSocketChannel.class)
                .handler(new ChannelInitializer<SocketChannel>() {
                    @Override
                    protected void initChannel(SocketChannel ch) {
                        if (tls != null) {
                            ch.pipeline().addLast(tls.newHandler(ch.alloc(), "127.0.0.1", port));
                        }
                        ch.pipeline().addLast(new HttpClientCodec(), new HttpObjectAggregator(65536),
                                new WebSocketClientProtocolHandler(config),
                                new WebSocketFrameAggregator(64 * 1024 * 1024),
                                client.new Handler());
                    }
                });
        if (receiveBuffer > 0) {
            bootstrap.option(ChannelOption.SO_RCVBUF, receiveBuffer);
        }
        client.channel = (sourceAddress == null
                ? bootstrap.connect("127.0.0.1", port)
                : bootstrap.connect(new java.net.InetSocketAddress("127.0.0.1", port), new java.net.InetSocketAddress(sourceAddress, 0)))
                .syncUninterruptibly().channel();
        client.channel.closeFuture().addListener(f -> {
            client.closeCode.complete(-1);
            client.handshake.completeExceptionally(new IllegalStateException("connection closed before the WebSocket handshake completed"));
        });
        client.handshake.orTimeout(10, TimeUnit.SECONDS).join();
        return client;
    }

    /** Connects with the token and waits for {@code connected}. */
    static WsClient connected(int port, String token) {
        WsClient client = connect(port);
        client.request("connect", m -> m.put("token", token));
        client.expect("connected");
        return client;
    }

    private final class Handler extends SimpleChannelInboundHandler<WebSocketFrame> {
        @Override
        public void userEventTriggered(ChannelHandlerContext ctx, Object evt) throws Exception {
            if (evt == WebSocketClientProtocolHandler.ClientHandshakeStateEvent.HANDSHAKE_COMPLETE) {
                handshake.complete(null);
            }
            super.userEventTriggered(ctx, evt);
        }

        @Override
        public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
            handshake.completeExceptionally(cause);
            ctx.close();
        }

        @Override
        protected void channelRead0(ChannelHandlerContext ctx, WebSocketFrame frame) throws Exception {
            if (frame instanceof TextWebSocketFrame text) {
                try {
                    received.add(JSON.readTree(text.text()));
                }
                catch (com.fasterxml.jackson.core.JsonProcessingException e) {
                    // Queued, so the test that expects something else fails on the spot, saying what came.
                    received.add(JSON.createObjectNode().put("type", "unparseable").put("text", text.text())
                            .put("problem", e.getOriginalMessage()));
                }
            }
            else if (frame instanceof CloseWebSocketFrame close) {
                closeReason = close.reasonText();
                closeCode.complete(close.statusCode());
                ctx.close();
            }
        }
    }

    /** Sends {@code {"type": type, "id": n, ...}} and returns the id. */
    long request(String type, java.util.function.Consumer<ObjectNode> fields) {
        long id = nextId++;
        ObjectNode m = JSON.createObjectNode().put("type", type).put("id", id);
        fields.accept(m);
        sendText(m.toString());
        return id;
    }

    void sendText(String text) {
        channel.writeAndFlush(new TextWebSocketFrame(text)).syncUninterruptibly();
    }

    /** Sends the texts as frames written together, so the server reads them in one go, before it answers any. */
    void sendTogether(List<String> texts) {
        texts.forEach(t -> channel.write(new TextWebSocketFrame(t)));
        channel.flush();
    }

    /**
     * Sends the text as one message of fragments of {@code fragmentBytes} (a text frame, then continuation frames),
     * without waiting for the writes: the server may close the connection half way through.
     */
    void sendFragments(String text, int fragmentBytes) {
        byte[] bytes = text.getBytes(java.nio.charset.StandardCharsets.UTF_8);
        for (int from = 0; from < bytes.length; from += fragmentBytes) {
            int to = Math.min(bytes.length, from + fragmentBytes);
            io.netty.buffer.ByteBuf part = io.netty.buffer.Unpooled.copiedBuffer(bytes, from, to - from);
            boolean last = to == bytes.length;
            channel.write(from == 0 ? new TextWebSocketFrame(last, 0, part)
                    : new io.netty.handler.codec.http.websocketx.ContinuationWebSocketFrame(last, 0, part));
        }
        channel.flush();
    }

    /** Sends the text as one frame without waiting for the write: the server may close the connection before it has read it. */
    void sendWithoutWaiting(String text) {
        channel.writeAndFlush(new TextWebSocketFrame(text));
    }

    void sendFrame(WebSocketFrame frame) {
        channel.writeAndFlush(frame).syncUninterruptibly();
    }

    /** Subscribes and waits for {@code subscribed}. */
    JsonNode subscribe(String endpoint, java.util.function.Consumer<ObjectNode> options) {
        request("subscribe", m -> {
            m.put("endpoint", endpoint);
            options.accept(m);
        });
        return expect("subscribed");
    }

    JsonNode subscribe(String endpoint) {
        return subscribe(endpoint, m -> { });
    }

    JsonNode next() {
        try {
            JsonNode m = poll(WAIT);
            assertThat(m).as("a message within %s (close code %s)", WAIT, closeCode.getNow(null)).isNotNull();
            return m;
        }
        catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError(e);
        }
    }

    /** The next message, which must be of this type. */
    JsonNode expect(String type) {
        JsonNode m = next();
        assertThat(m.path("type").asText()).as("type of %s", m).isEqualTo(type);
        return m;
    }

    /** The next messages, one of each type, in whatever order they come; fails on any other type. */
    java.util.Map<String, JsonNode> expectEach(String... types) {
        java.util.Map<String, JsonNode> seen = new java.util.HashMap<>();
        while (seen.size() < types.length) {
            JsonNode m = next();
            assertThat(m.path("type").asText()).as("%s", m).isIn((Object[]) types);
            seen.put(m.path("type").asText(), m);
        }
        return seen;
    }

    /** The next {@code n} messages of type {@code message} or {@code delta}, failing on anything else. */
    List<JsonNode> messages(int n) {
        List<JsonNode> out = new ArrayList<>();
        while (out.size() < n) {
            JsonNode m = next();
            assertThat(m.path("type").asText()).as("%s", m).isIn("message", "delta");
            out.add(m);
        }
        return out;
    }

    /** Whatever arrived already, without waiting. */
    List<JsonNode> drainNow() {
        List<JsonNode> out = new ArrayList<>();
        received.drainTo(out);
        return out;
    }

    /**
     * The next message within {@code wait}, or null; null at once when the connection has closed and everything it
     * delivered was taken (nothing more can come, so a test waiting for a refusal's close does not sit out the wait).
     */
    JsonNode poll(Duration wait) throws InterruptedException {
        long deadline = System.nanoTime() + wait.toNanos();
        while (true) {
            boolean closed = closeCode.isDone();
            JsonNode m = received.poll(Math.min(Math.max(deadline - System.nanoTime(), 0), 50_000_000L), TimeUnit.NANOSECONDS);
            if (m != null) {
                return m;
            }
            // Checked before the poll: a frame queued just before the close is still returned.
            if (closed || System.nanoTime() - deadline >= 0) {
                return null;
            }
        }
    }

    void pauseReading() {
        channel.config().setAutoRead(false);
    }

    void resumeReading() {
        channel.config().setAutoRead(true);
        channel.read();
    }

    /** The close code the server sent, or -1 if the connection ended without a close frame. */
    int awaitClose() {
        return closeCode.orTimeout(WAIT.toSeconds(), TimeUnit.SECONDS).join();
    }

    /** The reason text of the server's close frame, once {@link #awaitClose} returned; null without one. */
    String closeReason() {
        return closeReason;
    }

    boolean isOpen() {
        return channel.isActive();
    }

    @Override
    public void close() {
        channel.close().syncUninterruptibly();
    }
}
