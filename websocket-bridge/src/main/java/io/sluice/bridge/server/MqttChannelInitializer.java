package io.sluice.bridge.server;

import io.netty.channel.ChannelInitializer;
import io.netty.channel.socket.SocketChannel;
import io.netty.handler.ssl.SslContext;
import io.sluice.bridge.config.ConnectionsConfig;
import io.sluice.bridge.config.MqttConfig;
import io.sluice.bridge.mqtt.MqttPipeline;
import io.sluice.bridge.mqtt.SessionStore;
import io.sluice.bridge.session.SessionServices;

/**
 * An MQTT connection's pipeline (docs/bridge-mqtt.md), top to bottom as data arrives:
 * <pre>
 * (accept)          ConnectionAdmission: the same gate as the WebSocket listener's (the node's totals, per-address
 *                   counts and rate, handshakes in progress); the handshake deadline, connections.handshakeTimeout,
 *                   runs until the CONNECT is accepted
 * writability-gate  WritabilityGate: no socket read while the connection is above outbound.highWaterMarkBytes, and
 *                   closed when unwritable for outbound.maxSlowTime (the session's 4008 rule, here a DISCONNECT 0x97)
 * tls               MQTT over TLS, only when mqtt.tls is set
 * http, handshake, websocket, mqtt-websocket   MQTT over WebSocket only (mqtt.websocketListen): the upgrade, then
 *                   frames to bytes and back (MqttPipeline.addOverWebSocket)
 * mqtt-packets, mqtt-decoder, mqtt-encoder, mqtt   io.sluice.bridge.mqtt.MqttPipeline
 * </pre>
 * Clients behind a TCP proxy are counted by the proxy's address: MQTT carries no X-Forwarded-For, so
 * {@code connections.trustedProxies} exempts such a proxy from the per-address limits and nothing more.
 */
final class MqttChannelInitializer extends ChannelInitializer<SocketChannel> {

    /** The name of the MQTT handler, by which shutdown tells an MQTT connection from an HTTP one. */
    static final String MQTT = "mqtt";

    private final SslContext tls;
    private final ConnectionsConfig limits;
    private final BridgeChannelInitializer http;
    private final MqttPipeline mqtt;
    private final boolean overWebSocket;

    /**
     * @param http          the WebSocket listener's initializer, whose admission (the node's connection gate) and
     *                      writability gate this one shares
     * @param overWebSocket MQTT over WebSocket (mqtt.websocketListen) rather than over TCP
     */
    MqttChannelInitializer(MqttConfig config, ConnectionsConfig limits, SslContext tls, SessionServices services, SessionStore sessions,
                           BridgeChannelInitializer http, boolean overWebSocket) {
        this.tls = tls;
        this.limits = limits;
        this.http = http;
        this.overWebSocket = overWebSocket;
        this.mqtt = new MqttPipeline(config, services, sessions);
    }

    @Override
    protected void initChannel(SocketChannel ch) {
        ConnectionAdmission admission = http.admitAndGate(ch);
        if (admission == null) {
            return;
        }
        if (tls != null) {
            ch.pipeline().addLast("tls", tls.newHandler(ch.alloc()));
        }
        if (overWebSocket) {
            mqtt.addOverWebSocket(ch, limits, admission::upgraded);
        }
        else {
            mqtt.addTo(ch, admission::upgraded);
        }
    }
}
