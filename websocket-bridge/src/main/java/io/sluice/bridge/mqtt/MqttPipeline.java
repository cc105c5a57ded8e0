package io.sluice.bridge.mqtt;

import io.netty.channel.ChannelPipeline;
import io.netty.channel.socket.SocketChannel;
import io.netty.handler.codec.mqtt.MqttDecoder;
import io.netty.handler.codec.mqtt.MqttEncoder;
import io.sluice.bridge.config.MqttConfig;
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
    private final int preConnectBytes;

    public MqttPipeline(MqttConfig config, SessionServices services) {
        this.services = services;
        this.config = config;
        this.preConnectBytes = PacketLimit.preConnectBytes(services.requests().maxTokenBytes(), config.maxClientIdBytes(),
                config.maxPacketBytes());
    }

    /** @param connected told once the client's CONNECT is accepted: the connection is no longer a handshake */
    public void addTo(SocketChannel ch, Runnable connected) {
        ChannelPipeline p = ch.pipeline();
        PacketLimit limit = new PacketLimit(preConnectBytes, services.metrics());
        p.addLast(PacketLimit.NAME, limit);
        // PacketLimit passes whole packets within the limit in force; the decoder's own bound only backs it up.
        p.addLast("mqtt-decoder", new MqttDecoder(config.maxPacketBytes() + 8, config.maxClientIdBytes()));
        p.addLast("mqtt-encoder", MqttEncoder.INSTANCE);
        p.addLast(MqttConnection.NAME, new MqttConnection(services, config, limit, connected));
    }
}
