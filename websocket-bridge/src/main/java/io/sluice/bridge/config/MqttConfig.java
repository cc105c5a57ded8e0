package io.sluice.bridge.config;

import java.time.Duration;
import java.util.List;

import com.fasterxml.jackson.annotation.JsonCreator;
import com.fasterxml.jackson.annotation.JsonProperty;

import io.sluice.config.HostPort;
import io.sluice.config.TlsServerConfig;
import io.sluice.config.TlsValidator;

/**
 * The MQTT listener (docs/bridge-mqtt.md): MQTT 3.1.1 and 5.0 clients on a port of their own, served by the same
 * sessions, permissions, recovery and limits as WebSocket clients.
 *
 * @param enabled          listen for MQTT; false (the default): no MQTT port is opened
 * @param listen           address and port; port 0 picks a free one. Default 127.0.0.1:1883 (8883 is usual with TLS)
 * @param tls              when set, the listener speaks TLS (MQTT over TLS): the proxy gateways' section, same fields
 * @param maxPacketBytes   largest packet a client may send once connected (its remaining length), checked on the fixed
 *                         header before the packet is buffered; MQTT 5 clients are told it in CONNACK. Larger: closed
 *                         (MQTT 5: DISCONNECT 0x95 first)
 * @param maxInflight      QoS 1 messages sent to one client and not yet acknowledged (PUBACK); MQTT 5 clients' own
 *                         receive maximum lowers it. More wait in the session, counted against {@code outbound.maxBytes}
 * @param maxTopicAliases  topic aliases an MQTT 5 client may set on its publishes (told in CONNACK); 0: none
 * @param maxKeepAlive     the longest keep-alive a client may ask for; an MQTT 5 client asking for more, or for none,
 *                         is told this one (Server Keep Alive). A client silent for 1.5 times its keep-alive is closed
 * @param maxClientIdBytes longest client identifier accepted (UTF-8 bytes); longer: CONNACK "identifier rejected"
 * @param websocketListen  when set, MQTT over WebSocket (subprotocol {@code mqtt}, for MQTT.js in browsers) on this
 *                         address and port of its own, with {@code tls} too when that is set; null (default): none
 * @param websocketPath    the HTTP path of the MQTT WebSocket upgrade (MQTT.js's default is {@code /mqtt})
 * @param sessions         persistent sessions, their state in Kafka ({@link MqttSessionsConfig}); off by default
 */
public record MqttConfig(boolean enabled, HostPort listen, TlsServerConfig tls, int maxPacketBytes, int maxInflight,
                         int maxTopicAliases, Duration maxKeepAlive, int maxClientIdBytes, HostPort websocketListen,
                         String websocketPath, MqttSessionsConfig sessions) {

    public static final HostPort DEFAULT_LISTEN = new HostPort("127.0.0.1", 1883);
    public static final int DEFAULT_MAX_PACKET_BYTES = 256 * 1024;
    public static final int DEFAULT_MAX_INFLIGHT = 32;
    public static final int DEFAULT_MAX_TOPIC_ALIASES = 16;
    public static final Duration DEFAULT_MAX_KEEP_ALIVE = Duration.ofMinutes(20);
    public static final int DEFAULT_MAX_CLIENT_ID_BYTES = 256;
    public static final String DEFAULT_WEBSOCKET_PATH = "/mqtt";
    /** MQTT's own bound on a remaining length (four variable-length bytes). */
    static final int MQTT_MAX_REMAINING_LENGTH = 268_435_455;

    public MqttConfig {
        listen = listen == null ? DEFAULT_LISTEN : listen;
        maxKeepAlive = maxKeepAlive == null ? DEFAULT_MAX_KEEP_ALIVE : maxKeepAlive;
        websocketPath = websocketPath == null ? DEFAULT_WEBSOCKET_PATH : websocketPath;
        sessions = sessions == null ? MqttSessionsConfig.defaults() : sessions;
    }

    public static MqttConfig defaults() {
        return new MqttConfig(false, null, null, DEFAULT_MAX_PACKET_BYTES, DEFAULT_MAX_INFLIGHT, DEFAULT_MAX_TOPIC_ALIASES, null,
                DEFAULT_MAX_CLIENT_ID_BYTES, null, null, null);
    }

    /** The URL scheme clients use: {@code mqtts} with TLS, {@code mqtt} without. */
    public String scheme() {
        return tls == null ? "mqtt" : "mqtts";
    }

    @JsonCreator
    static MqttConfig fromYaml(@JsonProperty("enabled") Boolean enabled,
                               @JsonProperty("listen") HostPort listen,
                               @JsonProperty("tls") TlsServerConfig tls,
                               @JsonProperty("maxPacketBytes") Integer maxPacketBytes,
                               @JsonProperty("maxInflight") Integer maxInflight,
                               @JsonProperty("maxTopicAliases") Integer maxTopicAliases,
                               @JsonProperty("maxKeepAlive") Duration maxKeepAlive,
                               @JsonProperty("maxClientIdBytes") Integer maxClientIdBytes,
                               @JsonProperty("websocketListen") HostPort websocketListen,
                               @JsonProperty("websocketPath") String websocketPath,
                               @JsonProperty("sessions") MqttSessionsConfig sessions) {
        return new MqttConfig(enabled != null && enabled, listen, tls,
                maxPacketBytes == null ? DEFAULT_MAX_PACKET_BYTES : maxPacketBytes,
                maxInflight == null ? DEFAULT_MAX_INFLIGHT : maxInflight,
                maxTopicAliases == null ? DEFAULT_MAX_TOPIC_ALIASES : maxTopicAliases,
                maxKeepAlive, maxClientIdBytes == null ? DEFAULT_MAX_CLIENT_ID_BYTES : maxClientIdBytes, websocketListen, websocketPath, sessions);
    }

    /** Problems, each naming its field under {@code mqtt.}. */
    void validate(List<String> problems) {
        if (maxPacketBytes < 1024 || maxPacketBytes > MQTT_MAX_REMAINING_LENGTH) {
            problems.add("mqtt.maxPacketBytes: must be 1024.." + MQTT_MAX_REMAINING_LENGTH);
        }
        if (maxInflight < 1 || maxInflight > 65_535) {
            problems.add("mqtt.maxInflight: must be 1..65535");
        }
        if (maxTopicAliases < 0 || maxTopicAliases > 1024) {
            problems.add("mqtt.maxTopicAliases: must be 0..1024");
        }
        if (maxKeepAlive.compareTo(Duration.ofSeconds(1)) < 0 || maxKeepAlive.compareTo(Duration.ofSeconds(65_535)) > 0) {
            problems.add("mqtt.maxKeepAlive: must be 1s..65535s (MQTT counts it in seconds, in two bytes)");
        }
        if (maxClientIdBytes < 23 || maxClientIdBytes > 65_535) {
            // 23: every server must accept identifiers this long (MQTT 3.1.1, 3.1.3.1).
            problems.add("mqtt.maxClientIdBytes: must be 23..65535");
        }
        if (listen.port() < 0 || listen.port() > 65_535) {
            problems.add("mqtt.listen: the port must be 0..65535");
        }
        if (websocketListen != null && (websocketListen.port() < 0 || websocketListen.port() > 65_535)) {
            problems.add("mqtt.websocketListen: the port must be 0..65535");
        }
        if (!websocketPath.startsWith("/")) {
            problems.add("mqtt.websocketPath: must start with '/'");
        }
        if (tls != null) {
            new TlsValidator(problems).server(tls, "mqtt.tls");
        }
        sessions.validate(problems);
    }
}
