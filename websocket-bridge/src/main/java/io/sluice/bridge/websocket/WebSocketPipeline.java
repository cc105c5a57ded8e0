package io.sluice.bridge.websocket;

import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelPipeline;
import io.netty.channel.socket.SocketChannel;
import io.netty.handler.codec.http.websocketx.WebSocketDecoderConfig;
import io.netty.handler.codec.http.websocketx.WebSocketFrameAggregator;
import io.netty.handler.codec.http.websocketx.WebSocketServerProtocolConfig;
import io.netty.handler.codec.http.websocketx.WebSocketServerProtocolHandler;
import io.sluice.bridge.config.ServerConfig;
import io.sluice.bridge.session.SessionServices;
import io.sluice.flow.Closing;

/**
 * The WebSocket transport's handlers, for the listener's HTTP/1.1 pipeline ({@code server.BridgeChannelInitializer}
 * decides where each goes among the HTTP handlers it shares with the other transport): in, the listener's settings;
 * out, the {@code frames} marker next to the socket, the upgrade on {@code server.path} and, at the end, the frame
 * aggregator and the {@link SessionHandler} that hands messages to a {@code Session} through a {@link WebSocketWire}.
 * It exists so that the WebSocket decoder settings (the normal frame limit, the smaller one before connect:
 * {@link PreConnectLimit}) are made once per listener, in the package that uses them.
 */
public final class WebSocketPipeline {

    // The name of the handler Netty's handshake handler replaces itself with (WebSocketServerProtocolHandshakeHandler).
    private static final String NETTY_403_RESPONDER = "WS403Responder";

    private final SessionServices services;
    private final int maxInboundMessageBytes;
    // Frame decoding after connect, the smaller message size before it, and the handshake settings with the latter.
    private final WebSocketDecoderConfig connectedDecoder;
    private final int preConnectBytes;
    private final WebSocketServerProtocolConfig websocket;

    public WebSocketPipeline(ServerConfig server, SessionServices services) {
        this.services = services;
        this.maxInboundMessageBytes = server.maxInboundMessageBytes();
        this.connectedDecoder = WebSocketDecoderConfig.newBuilder()
                .maxFramePayloadLength(server.maxInboundMessageBytes())
                .allowExtensions(false)
                .closeOnProtocolViolation(true)
                .build();
        this.preConnectBytes = PreConnectLimit.bytes(services.requests().maxTokenBytes(), server.maxInboundMessageBytes());
        this.websocket = WebSocketServerProtocolConfig.newBuilder()
                .websocketPath(server.path())
                .handleCloseFrames(true)
                .dropPongFrames(true)
                // Netty's own close frames (an answer to the client's close, a protocol violation, 1009) are bounded
                // like ours: a client that does not read them is cut after the grace.
                .forceCloseTimeoutMillis(Closing.DEFAULT_GRACE.toMillis())
                // A close of the channel closes it: Netty's default first writes a 1000 close frame and waits for it to
                // be sent, which delays every hard close (handshake deadline, stuck peer, a grace that ran out) behind
                // the bytes a non-reading client never takes. Close frames the bridge means to send, it sends itself.
                .sendCloseFrame(null)
                .decoderConfig(PreConnectLimit.beforeConnect(connectedDecoder, preConnectBytes))
                .build();
    }

    /** Adds the {@code frames} marker as the pipeline's innermost handler so far: call before the HTTP codec is added. */
    public void addFrames(ChannelPipeline p) {
        EncodedFrames.addTo(p);
    }

    /**
     * The upgrade on the WebSocket path; then frames: ping/pong and close answered there, a frame over the limit closes
     * with 1009 (decided on its header, before the payload is buffered). Requests for other paths go on.
     */
    public ChannelHandler upgrade() {
        return new WebSocketServerProtocolHandler(websocket);
    }

    /**
     * The handshake is done: what only served it leaves the pipeline, so that an open connection keeps the handlers it
     * uses and no more (docs/bridge.md, "Memory per connection"). Netty already took the HTTP codec and the aggregator
     * out; it leaves in the responder it put where its handshake handler was, which answers HTTP requests that can no
     * longer arrive (the decoder before it now reads WebSocket frames).
     */
    static void upgraded(ChannelPipeline p) {
        if (p.context(NETTY_403_RESPONDER) != null) {
            p.remove(NETTY_403_RESPONDER);
        }
    }

    /**
     * Adds, at the end of the pipeline, the fragment aggregator (one message under the limit in force) and the session
     * handler.
     *
     * @param upgraded told when the WebSocket handshake completes
     */
    public void addSession(SocketChannel ch, Runnable upgraded) {
        PreConnectLimit limit = new PreConnectLimit(ch, connectedDecoder, maxInboundMessageBytes, services.metrics());
        ChannelPipeline p = ch.pipeline();
        p.addLast(PreConnectLimit.AGGREGATOR, new WebSocketFrameAggregator(preConnectBytes));
        p.addLast("session", new SessionHandler(services, upgraded, limit));
    }
}
