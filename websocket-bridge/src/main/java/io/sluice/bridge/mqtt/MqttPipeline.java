package io.sluice.bridge.mqtt;

import io.netty.channel.ChannelPipeline;
import io.netty.channel.socket.SocketChannel;
import io.netty.handler.codec.mqtt.MqttDecoder;
import io.netty.handler.codec.mqtt.MqttEncoder;
import io.netty.handler.codec.http.HttpDecoderConfig;
import io.netty.handler.codec.http.HttpObjectAggregator;
import io.netty.handler.codec.http.HttpServerCodec;
import io.netty.handler.codec.http.websocketx.WebSocketDecoderConfig;
import io.netty.handler.codec.http.websocketx.WebSocketServerProtocolConfig;
import io.netty.handler.codec.http.websocketx.WebSocketServerProtocolHandler;
import io.sluice.bridge.config.ConnectionsConfig;
import io.sluice.bridge.config.MqttConfig;
import io.sluice.bridge.websocket.FrameLimit;
import io.sluice.flow.Closing;
import io.sluice.bridge.session.SessionServices;

/**
 * The MQTT transport's handlers, for the end of a connection's pipeline ({@code server.MqttChannelInitializer} puts
 * the connection limits, the writability gate and TLS before them): {@link PacketLimit} (whole packets, bounded on
 * their fixed header), Netty's decoder and encoder, and the {@link MqttConnection} that serves the client through a
 * {@code Session}.
 */
public final class MqttPipeline {

    private final SessionServices services;
    private final MqttConfig config;
    private final SessionStore store;
    private final int preConnectBytes;
    /** MQTT over WebSocket's frames once connected: a whole packet fits one (MQTT.js sends each packet as a frame). */
    private final WebSocketDecoderConfig frames;
    private static final int MAX_HANDSHAKE_BYTES = 16 * 1024;

    /** @param store persistent sessions' state in Kafka, or null when {@code mqtt.sessions} is off */
    public MqttPipeline(MqttConfig config, SessionServices services, SessionStore store) {
        this.services = services;
        this.store = store;
        this.config = config;
        this.preConnectBytes = PacketLimit.preConnectBytes(services.requests().maxTokenBytes(), config.maxClientIdBytes(),
                config.maxPacketBytes());
        this.frames = WebSocketDecoderConfig.newBuilder().maxFramePayloadLength(config.maxPacketBytes() + 8)
                .allowExtensions(false).closeOnProtocolViolation(true).build();
    }

    /** @param connected told once the client's CONNECT is accepted: the connection is no longer a handshake */
    public void addTo(SocketChannel ch, Runnable connected) {
        addMqtt(ch, connected, () -> { });
    }

    /**
     * MQTT over WebSocket: the HTTP codec (request line and headers bounded by {@code connections}), the upgrade on
     * {@code mqtt.websocketPath} offering subprotocol {@code mqtt} with frames no larger than a CONNECT until one is read
     * (then {@code mqtt.maxPacketBytes}), {@link WebSocketPackets}, then the MQTT handlers as over TCP.
     */
    public void addOverWebSocket(SocketChannel ch, ConnectionsConfig limits, Runnable connected) {
        ChannelPipeline p = ch.pipeline();
        p.addLast("http", new HttpServerCodec(new HttpDecoderConfig()
                .setMaxInitialLineLength(limits.maxRequestLineBytes())
                .setMaxHeaderSize(limits.maxHeaderBytes())));
        p.addLast("handshake", new HttpObjectAggregator(MAX_HANDSHAKE_BYTES));
        p.addLast("websocket", new WebSocketServerProtocolHandler(WebSocketServerProtocolConfig.newBuilder()
                .websocketPath(config.websocketPath())
                .subprotocols("mqtt")
                .handleCloseFrames(true)
                .dropPongFrames(true)
                .forceCloseTimeoutMillis(Closing.DEFAULT_GRACE.toMillis())
                .sendCloseFrame(null)
                .decoderConfig(frames.toBuilder().maxFramePayloadLength(preConnectBytes).build())
                .build()));
        p.addLast(WebSocketPackets.NAME, new WebSocketPackets());
        // The CONNECT is read: frames up to a packet's size from the next one on (reading pauses while it is validated).
        addMqtt(ch, connected, () -> FrameLimit.raise(ch, frames));
    }

    private void addMqtt(SocketChannel ch, Runnable connected, Runnable connectRead) {
        ChannelPipeline p = ch.pipeline();
        PacketLimit limit = new PacketLimit(preConnectBytes, services.metrics());
        p.addLast(PacketLimit.NAME, limit);
        // PacketLimit passes whole packets within the limit in force; the decoder's own bound only backs it up.
        p.addLast("mqtt-decoder", new MqttDecoder(config.maxPacketBytes() + 8, config.maxClientIdBytes()));
        p.addLast("mqtt-encoder", MqttEncoder.INSTANCE);
        p.addLast(MqttConnection.NAME, new MqttConnection(services, config, store, limit, connected, connectRead));
    }
}
