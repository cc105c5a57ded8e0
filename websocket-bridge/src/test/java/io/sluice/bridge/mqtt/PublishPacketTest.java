package io.sluice.bridge.mqtt;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;

import org.junit.jupiter.api.Test;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.Unpooled;
import io.netty.channel.embedded.EmbeddedChannel;
import io.netty.handler.codec.mqtt.MqttDecoder;
import io.netty.handler.codec.mqtt.MqttEncoder;
import io.netty.handler.codec.mqtt.MqttFixedHeader;
import io.netty.handler.codec.mqtt.MqttMessageType;
import io.netty.handler.codec.mqtt.MqttProperties;
import io.netty.handler.codec.mqtt.MqttPublishMessage;
import io.netty.handler.codec.mqtt.MqttPublishVariableHeader;
import io.netty.handler.codec.mqtt.MqttQoS;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The hand-written MQTT 3.1.1 PUBLISH against Netty's encoder and decoder, at every length the header can take. */
class PublishPacketTest {

    /** Payload sizes at each boundary of the remaining length's bytes (127, 16,383, 2,097,151 with the variable header). */
    private static final int[] SIZES = {0, 1, 100, 120, 121, 122, 123, 124, 125, 126, 127, 128, 500, 16_370, 16_371, 16_372,
            16_373, 16_374, 16_375, 16_376, 16_384, 100_000, 2_097_140, 2_097_141, 2_097_142, 2_097_143, 2_097_144, 2_097_150, 2_200_000};
    private static final List<String> TOPICS = List.of("a", "scores/live/football", "prices/€/zürich", "x".repeat(300), "日本/東京/🚆");

    @Test
    void everyPacketIsTheEncodersByteForByte() {
        Random random = new Random(34);
        int checked = 0;
        for (int size : SIZES) {
            byte[] payload = new byte[size];
            random.nextBytes(payload);
            for (String topic : TOPICS) {
                for (MqttQoS qos : List.of(MqttQoS.AT_MOST_ONCE, MqttQoS.AT_LEAST_ONCE)) {
                    for (boolean retain : List.of(false, true)) {
                        boolean dup = qos == MqttQoS.AT_LEAST_ONCE && retain;
                        int packetId = 1 + random.nextInt(65_535);
                        byte[] ours = bytes(PublishPacket.encode(ByteBufAllocator.DEFAULT, topic, dup, qos, retain, packetId, Unpooled.wrappedBuffer(payload)));
                        byte[] netty = netty(topic, dup, qos, retain, packetId, payload);
                        assertThat(ours).as("topic %s, %d bytes, %s, retain %s", topic, size, qos, retain).isEqualTo(netty);
                        checked++;
                    }
                }
            }
        }
        assertThat(checked).isEqualTo(SIZES.length * TOPICS.size() * 4);
    }

    @Test
    void nettysDecoderReadsItBack() {
        byte[] payload = "{\"score\":\"2-1\"}".getBytes(StandardCharsets.UTF_8);
        ByteBuf packet = PublishPacket.encode(ByteBufAllocator.DEFAULT, "scores/live/€", true, MqttQoS.AT_LEAST_ONCE, true, 513, Unpooled.wrappedBuffer(payload));
        EmbeddedChannel decoder = new EmbeddedChannel(new MqttDecoder());
        decoder.writeInbound(packet);
        MqttPublishMessage read = decoder.readInbound();
        try {
            assertThat(read.decoderResult().isSuccess()).isTrue();
            assertThat(read.fixedHeader().isDup()).isTrue();
            assertThat(read.fixedHeader().isRetain()).isTrue();
            assertThat(read.fixedHeader().qosLevel()).isEqualTo(MqttQoS.AT_LEAST_ONCE);
            assertThat(read.variableHeader().topicName()).isEqualTo("scores/live/€");
            assertThat(read.variableHeader().packetId()).isEqualTo(513);
            assertThat(ByteBufUtil.getBytes(read.payload())).isEqualTo(payload);
        }
        finally {
            read.release();
            decoder.finishAndReleaseAll();
        }
    }

    @Test
    void thePayloadIsNotCopiedAndItsReferenceIsTaken() {
        ByteBuf frame = Unpooled.directBuffer(64).writeBytes("[1,2,3]".getBytes(StandardCharsets.US_ASCII));
        ByteBuf slice = frame.retainedSlice();
        ByteBuf packet = PublishPacket.encode(ByteBufAllocator.DEFAULT, "t", false, MqttQoS.AT_MOST_ONCE, false, 0, slice);
        // The packet reads the frame's own memory: a change to the frame shows in it.
        frame.setByte(1, '9');
        assertThat(packet.toString(StandardCharsets.US_ASCII)).endsWith("[9,2,3]");
        assertThat(frame.refCnt()).isEqualTo(2);
        packet.release();
        assertThat(frame.refCnt()).isEqualTo(1);
        frame.release();
    }

    @Test
    void aPacketMQTTCannotExpressIsRefusedAndItsPayloadReleased() {
        ByteBuf payload = Unpooled.buffer(1);
        payload.writerIndex(1);
        // 256 MiB in a composite of one MiB shared 256 times: one byte past what the remaining length can say.
        ByteBuf mib = Unpooled.buffer(1 << 20).writerIndex(1 << 20);
        io.netty.buffer.CompositeByteBuf huge = Unpooled.compositeBuffer(256);
        for (int i = 0; i < 256; i++) {
            huge.addComponent(true, mib.retainedDuplicate());
        }
        mib.release();
        assertThatThrownBy(() -> PublishPacket.encode(ByteBufAllocator.DEFAULT, "t", false, MqttQoS.AT_MOST_ONCE, false, 0, huge))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("does not fit");
        assertThatThrownBy(() -> PublishPacket.encode(ByteBufAllocator.DEFAULT, "t".repeat(65_536), false, MqttQoS.AT_MOST_ONCE, false, 0, payload))
                .isInstanceOf(IllegalArgumentException.class);
        assertThat(huge.refCnt()).isZero();
        assertThat(mib.refCnt()).isZero();
        assertThat(payload.refCnt()).isZero();
    }

    private static byte[] netty(String topic, boolean dup, MqttQoS qos, boolean retain, int packetId, byte[] payload) {
        EmbeddedChannel channel = new EmbeddedChannel(MqttEncoder.INSTANCE);
        MqttPublishMessage message = new MqttPublishMessage(new MqttFixedHeader(MqttMessageType.PUBLISH, dup, qos, retain, 0),
                new MqttPublishVariableHeader(topic, qos == MqttQoS.AT_MOST_ONCE ? -1 : packetId, MqttProperties.NO_PROPERTIES),
                Unpooled.wrappedBuffer(payload));
        channel.writeOutbound(message);
        List<ByteBuf> out = new ArrayList<>();
        for (ByteBuf b; (b = channel.readOutbound()) != null; ) {
            out.add(b);
        }
        channel.finish();
        return bytes(Unpooled.wrappedBuffer(out.toArray(ByteBuf[]::new)));
    }

    private static byte[] bytes(ByteBuf buf) {
        try {
            return ByteBufUtil.getBytes(buf);
        }
        finally {
            buf.release();
        }
    }
}
