package io.sluice.bridge.mqtt;

import java.nio.charset.StandardCharsets;
import java.util.ArrayDeque;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import org.apache.kafka.common.header.Header;

import io.netty.buffer.ByteBuf;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelOutboundBuffer;
import io.netty.handler.codec.mqtt.MqttFixedHeader;
import io.netty.handler.codec.mqtt.MqttMessage;
import io.netty.handler.codec.mqtt.MqttMessageBuilders;
import io.netty.handler.codec.mqtt.MqttMessageType;
import io.netty.handler.codec.mqtt.MqttProperties;
import io.netty.handler.codec.mqtt.MqttPublishMessage;
import io.netty.handler.codec.mqtt.MqttPublishVariableHeader;
import io.netty.handler.codec.mqtt.MqttQoS;
import io.netty.util.concurrent.ScheduledFuture;
import io.sluice.bridge.config.OutboundConfig;
import io.sluice.bridge.protocol.ClientRequest;
import io.sluice.bridge.protocol.CloseCodes;
import io.sluice.bridge.protocol.EncodedMessage;
import io.sluice.bridge.protocol.FramePayload;
import io.sluice.bridge.protocol.PayloadFormat;
import io.sluice.bridge.session.Session;
import io.sluice.bridge.session.Wire;

/**
 * The MQTT transport of a {@link Session}: each message the session sends becomes a PUBLISH of the record's value
 * ({@link FramePayload}: the JSON, text or bytes, not the WebSocket message around it) on the endpoint's topic, with
 * the QoS its client's filters grant it ({@link MqttSubscriptions}) and, on MQTT 5, the format, epoch, seq and the
 * record's headers as properties. Messages a new subscription gets before its live stream (the endpoint's latest, or a
 * recovery) carry the retain flag: the bridge's cache stands in for an MQTT server's retained messages.
 *
 * <p>QoS 1 deliveries take a packet id each and wait for their PUBACK; at most {@code window} are unacknowledged
 * (the smaller of {@code mqtt.maxInflight} and an MQTT 5 client's receive maximum), the rest wait here in order and
 * count in {@link #queuedBytes()}, so against {@code outbound.maxBytes}: a client that does not acknowledge is closed
 * like one that does not read, at that limit or after {@code outbound.maxSlowTime} with a full window. Session
 * notices (gaps, conflation reports) and replies have no MQTT form and are dropped (docs/bridge-mqtt.md#what-mqtt-cannot-say).
 * Event loop only.
 */
final class MqttWire implements Wire {

    private static final String JSON_TYPE = "application/json";
    private static final String TEXT_TYPE = "text/plain; charset=utf-8";
    private static final String BYTES_TYPE = "application/octet-stream";

    private final Channel channel;
    private final boolean v5;
    private final MqttSubscriptions subscriptions;
    private final OutboundConfig outbound;
    private final int window;
    private final long clientMaxPacket;
    // A persistent session's positions (docs/bridge-mqtt.md#sessions), or null: the session ends with the connection.
    private final DeliveryPositions positions;
    private Session session;
    // Per pattern, per epoch: the node's position when the subscription was made; messages up to it are retained ones.
    private final Map<String, Map<String, Long>> retainedUpTo = new HashMap<>();
    // QoS 1 deliveries sent and not acknowledged, by packet id.
    private final Map<Integer, Delivery> unacked = new HashMap<>();
    private final ArrayDeque<Pending> waiting = new ArrayDeque<>();
    private long waitingBytes;
    private int nextPacketId = 1;
    private ScheduledFuture<?> windowFullSince;
    private int closeCode;

    /** A QoS 1 delivery waiting for room in the window. */
    private record Pending(String topic, boolean retain, boolean dup, EncodedMessage message, FramePayload payload, Delivery delivery) {
    }

    /** Which positions a QoS 1 delivery holds back until its PUBACK: the patterns it went out for, its epoch and seq. */
    private record Delivery(List<String> patterns, String epoch, long seq) {
    }

    private static final Delivery UNTRACKED = new Delivery(List.of(), "", -1);

    /**
     * @param window          QoS 1 deliveries that may be unacknowledged at once
     * @param clientMaxPacket the client's maximum packet size (MQTT 5), or {@link Long#MAX_VALUE}
     */
    MqttWire(Channel channel, boolean v5, MqttSubscriptions subscriptions, OutboundConfig outbound, int window, long clientMaxPacket,
             DeliveryPositions positions) {
        this.channel = channel;
        this.positions = positions;
        this.v5 = v5;
        this.subscriptions = subscriptions;
        this.outbound = outbound;
        this.window = window;
        this.clientMaxPacket = clientMaxPacket;
    }

    /** The session writing through this wire, which it asks to close a client that does not acknowledge. */
    void attach(Session session) {
        this.session = session;
    }

    @Override
    public String transport() {
        return "mqtt";
    }

    @Override
    public void subscribed(String pattern, List<ClientRequest.Position> recover, List<ClientRequest.Position> positions) {
        if (this.positions != null) {
            boolean resuming = this.positions.resuming(pattern);
            this.positions.subscribed(pattern, positions);
            if (resuming) {
                // What a resumed subscription recovers is what the session missed, not retained messages.
                return;
            }
        }
        Map<String, Long> upTo = new HashMap<>();
        positions.forEach(p -> upTo.put(p.epoch(), p.seq()));
        retainedUpTo.put(pattern, upTo);
    }

    /** The bridge subscription ended: its retained marks go, and its positions. */
    void unsubscribed(String pattern) {
        retainedUpTo.remove(pattern);
        if (positions != null) {
            positions.forget(pattern);
        }
    }

    @Override
    public void message(EncodedMessage message, ByteBuf frame, boolean delta, String pattern) {
        if (message.notice() || delta) {
            return;
        }
        List<String> patterns = positions == null ? List.of() : pattern != null ? List.of(pattern) : subscriptions.patternsCovering(message.endpoint());
        DeliveryPositions.Verdict verdict = positions == null || pattern == null ? DeliveryPositions.Verdict.SEND
                : positions.verdict(pattern, message.epoch(), message.seq());
        String topic = MqttTopics.topicOf(message.endpoint());
        int qos = topic == null || verdict == DeliveryPositions.Verdict.SKIP ? -1 : subscriptions.qosFor(topic);
        FramePayload payload = qos < 0 ? null : FramePayload.of(frame);
        if (payload == null) {
            // Not for this client (or done before a resume): done all the same, its position passed.
            done(patterns, message);
            return;
        }
        boolean retain = retained(pattern, message);
        boolean dup = verdict == DeliveryPositions.Verdict.RESEND;
        if (qos == 0 || retain) {
            // Retained messages are the endpoint's latest at subscribe time, owed to nobody: a resume does not resend them.
            done(patterns, message);
        }
        if (qos == 0) {
            send(topic, retain, false, message, payload, MqttQoS.AT_MOST_ONCE, 0, UNTRACKED);
            return;
        }
        Delivery delivery = UNTRACKED;
        if (positions != null && !retain) {
            delivery = new Delivery(patterns, message.epoch(), message.seq());
            positions.owed(patterns, message.epoch(), message.seq());
        }
        if (waiting.isEmpty() && unacked.size() < window) {
            send(topic, retain, dup, message, payload, MqttQoS.AT_LEAST_ONCE, packetId(), delivery);
            return;
        }
        // The payload holds the bytes (a retained slice of the frame, or a copy); the message only its fields.
        waiting.add(new Pending(topic, retain, dup, message, payload, delivery));
        waitingBytes += message.bytes();
        windowFull();
    }

    private void done(List<String> patterns, EncodedMessage message) {
        if (positions != null && !patterns.isEmpty()) {
            positions.done(patterns, message.epoch(), message.seq());
        }
    }

    /** A PUBACK from the client: its delivery is done, and the next waiting one goes out. */
    void acked(int packetId) {
        Delivery delivery = unacked.remove(packetId);
        if (delivery == null) {
            return;
        }
        if (positions != null && delivery != UNTRACKED) {
            positions.acknowledged(delivery.patterns(), delivery.epoch(), delivery.seq());
        }
        boolean wrote = false;
        while (!waiting.isEmpty() && unacked.size() < window) {
            Pending next = waiting.poll();
            waitingBytes -= next.message().bytes();
            send(next.topic(), next.retain(), next.dup(), next.message(), next.payload(), MqttQoS.AT_LEAST_ONCE, packetId(), next.delivery());
            wrote = true;
        }
        if (wrote) {
            channel.flush();
        }
        if (waiting.isEmpty() && windowFullSince != null) {
            windowFullSince.cancel(false);
            windowFullSince = null;
        }
    }

    private boolean retained(String pattern, EncodedMessage message) {
        if (pattern == null) {
            return false;
        }
        Map<String, Long> upTo = retainedUpTo.get(pattern);
        if (upTo == null) {
            return false;
        }
        Long position = upTo.get(message.epoch());
        if (position == null) {
            return false;
        }
        if (message.seq() <= position) {
            return true;
        }
        // The live stream of this partition has begun: nothing older follows.
        upTo.remove(message.epoch());
        if (upTo.isEmpty()) {
            retainedUpTo.remove(pattern);
        }
        return false;
    }

    private int packetId() {
        int id;
        do {
            id = nextPacketId;
            nextPacketId = nextPacketId == 65_535 ? 1 : nextPacketId + 1;
        }
        while (unacked.containsKey(id));
        return id;
    }

    /** Writes one PUBLISH (not flushed); takes the payload's reference. */
    private void send(String topic, boolean retain, boolean dup, EncodedMessage message, FramePayload payload, MqttQoS qos, int packetId,
                      Delivery delivery) {
        MqttProperties properties = v5 ? properties(message, payload.format()) : MqttProperties.NO_PROPERTIES;
        ByteBuf bytes = payload.bytes();
        if (clientMaxPacket != Long.MAX_VALUE && estimate(topic, bytes, message) > clientMaxPacket) {
            // MQTT 5 (3.1.2.11.4): a packet over the client's maximum is not sent; the client never sees it.
            bytes.release();
            if (positions != null && delivery != UNTRACKED) {
                positions.acknowledged(delivery.patterns(), delivery.epoch(), delivery.seq());
            }
            return;
        }
        if (qos == MqttQoS.AT_LEAST_ONCE) {
            unacked.put(packetId, delivery);
        }
        // DUP: a resumed session's delivery that may have reached the client before (MQTT 3.1.1 4.4, 5.0 4.4).
        MqttPublishMessage publish = new MqttPublishMessage(new MqttFixedHeader(MqttMessageType.PUBLISH, dup, qos, retain, 0),
                new MqttPublishVariableHeader(topic, packetId, properties), bytes);
        channel.write(publish, channel.voidPromise());
    }

    private static long estimate(String topic, ByteBuf payload, EncodedMessage message) {
        // Fixed header, topic, packet id, and the properties: generous for their fixed part, exact enough for headers.
        long headers = 0;
        for (Header h : message.headers()) {
            headers += 5 + h.key().length() * 3L + (h.value() == null ? 0 : h.value().length);
        }
        return 5 + 2 + topic.length() * 3L + 2 + 128 + headers + payload.readableBytes();
    }

    private static MqttProperties properties(EncodedMessage message, PayloadFormat format) {
        MqttProperties properties = new MqttProperties();
        String type = switch (format) {
            case JSON -> JSON_TYPE;
            case TEXT -> TEXT_TYPE;
            default -> BYTES_TYPE;
        };
        properties.add(new MqttProperties.StringProperty(MqttProperties.CONTENT_TYPE, type));
        if (format == PayloadFormat.JSON || format == PayloadFormat.TEXT) {
            // UTF-8 text (MQTT 5, 3.3.2.3.2): clients may check it.
            properties.add(new MqttProperties.IntegerProperty(MqttProperties.PAYLOAD_FORMAT_INDICATOR, 1));
        }
        MqttProperties.UserProperties user = new MqttProperties.UserProperties();
        user.add("sluice-format", format.wireName());
        user.add("sluice-epoch", message.epoch());
        user.add("sluice-seq", Long.toString(message.seq()));
        user.add("sluice-timestamp", Long.toString(message.timestamp()));
        for (Header h : message.headers()) {
            // A user property is a UTF-8 string pair: headers whose value is not text are left out.
            String value = h.value() == null ? "" : utf8(h.value());
            if (value != null) {
                user.add(h.key(), value);
            }
        }
        properties.add(user);
        return properties;
    }

    private static String utf8(byte[] bytes) {
        try {
            return StandardCharsets.UTF_8.newDecoder().decode(java.nio.ByteBuffer.wrap(bytes)).toString();
        }
        catch (java.nio.charset.CharacterCodingException e) {
            return null;
        }
    }

    /**
     * The window is full and deliveries wait: past {@code outbound.maxBytes} at once, or after
     * {@code outbound.maxSlowTime} without room, the client is closed as a slow one.
     */
    private void windowFull() {
        if (session == null) {
            return;
        }
        if (queuedBytes() > outbound.maxBytes()) {
            session.close(CloseCodes.SLOW_CLIENT, "slow client: QoS 1 deliveries not acknowledged (outbound limit exceeded)");
            return;
        }
        if (windowFullSince == null) {
            windowFullSince = channel.eventLoop().schedule(() -> {
                windowFullSince = null;
                if (!waiting.isEmpty()) {
                    session.close(CloseCodes.SLOW_CLIENT, "slow client: QoS 1 deliveries not acknowledged for too long");
                }
            }, outbound.maxSlowTime().toMillis(), TimeUnit.MILLISECONDS);
        }
    }

    @Override
    public void control(byte[] json) {
        // The session's replies and notices (connected, subscribed, expiring, conflated, error) have no MQTT form: the
        // MQTT handler answers each packet itself.
    }

    @Override
    public void flush() {
        channel.flush();
    }

    @Override
    public long queuedBytes() {
        ChannelOutboundBuffer buffer = channel.unsafe().outboundBuffer();
        return (buffer == null ? 0 : buffer.totalPendingWriteBytes()) + waitingBytes;
    }

    /** The code the session closed with, 0 if it has not. */
    int closeCode() {
        return closeCode;
    }

    @Override
    public ChannelFuture close(int code, String reason) {
        closeCode = code;
        release();
        if (!v5) {
            // MQTT 3.1.1 has no DISCONNECT from the server: the connection just closes.
            return channel.newSucceededFuture();
        }
        MqttProperties properties = new MqttProperties();
        properties.add(new MqttProperties.StringProperty(MqttProperties.REASON_STRING, reason));
        MqttMessage disconnect = MqttMessageBuilders.disconnect().reasonCode((byte) Reasons.disconnect(code)).properties(properties).build();
        return channel.writeAndFlush(disconnect);
    }

    /** Releases the deliveries waiting for the window. */
    void release() {
        for (Pending p : waiting) {
            p.payload().bytes().release();
        }
        waiting.clear();
        waitingBytes = 0;
        if (windowFullSince != null) {
            windowFullSince.cancel(false);
            windowFullSince = null;
        }
    }
}

