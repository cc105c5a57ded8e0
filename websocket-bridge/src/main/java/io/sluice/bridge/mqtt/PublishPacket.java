package io.sluice.bridge.mqtt;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.ByteBufUtil;
import io.netty.handler.codec.mqtt.MqttQoS;

/**
 * MQTT 3.1.1 PUBLISH packets for deliveries, written without Netty's {@code MqttEncoder}: the fixed header, the topic
 * and the packet id go in a small buffer of their own, and the payload follows as the bytes it already is (for JSON, a
 * slice of the frame every WebSocket client of the message gets), the two as one composite buffer, so one packet stays
 * one WebSocket frame over {@code mqtt.websocketListen}. Why: the encoder copies each payload into a new buffer, per
 * packet and so per subscriber, with a message object and its headers around it; a message delivered to 10,000
 * subscribers was copied 10,000 times. Byte for byte what the encoder writes (PublishPacketTest). MQTT 5 deliveries,
 * which carry properties, still go through the encoder.
 */
final class PublishPacket {

    /** The largest remaining length MQTT can express (four length bytes, 2.2.3). */
    static final int MAX_REMAINING_LENGTH = 268_435_455;

    private PublishPacket() {
    }

    /**
     * The packet; takes {@code payload}'s reference (released here if the packet cannot be written).
     *
     * @param packetId ignored at QoS 0, which has none
     */
    static ByteBuf encode(ByteBufAllocator alloc, String topic, boolean dup, MqttQoS qos, boolean retain, int packetId, ByteBuf payload) {
        int topicBytes = ByteBufUtil.utf8Bytes(topic);
        boolean withId = qos.value() > 0;
        int variable = 2 + topicBytes + (withId ? 2 : 0);
        long remaining = (long) variable + payload.readableBytes();
        if (topicBytes > 65_535 || remaining > MAX_REMAINING_LENGTH) {
            payload.release();
            throw new IllegalArgumentException("a PUBLISH of " + remaining + " bytes (topic " + topicBytes + ") does not fit MQTT's lengths");
        }
        ByteBuf header = alloc.buffer(1 + 4 + variable);
        header.writeByte(0x30 | (dup ? 0x08 : 0) | (qos.value() << 1) | (retain ? 0x01 : 0));
        writeRemainingLength(header, (int) remaining);
        header.writeShort(topicBytes);
        ByteBufUtil.writeUtf8(header, topic);
        if (withId) {
            header.writeShort(packetId);
        }
        if (!payload.isReadable()) {
            payload.release();
            return header;
        }
        return alloc.compositeBuffer(2).addComponents(true, header, payload);
    }

    /** The variable byte integer of 2.2.3: seven bits a byte, least significant first. */
    private static void writeRemainingLength(ByteBuf out, int length) {
        int value = length;
        do {
            int digit = value & 0x7f;
            value >>>= 7;
            out.writeByte(value > 0 ? digit | 0x80 : digit);
        }
        while (value > 0);
    }
}
