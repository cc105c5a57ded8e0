package io.sluice.bridge.mqtt;

import java.nio.charset.StandardCharsets;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.UnpooledByteBufAllocator;
import org.junit.jupiter.api.Test;

import io.sluice.bridge.protocol.EncodedMessage;
import io.sluice.bridge.protocol.FramePayload;
import io.sluice.bridge.protocol.MessageEncoder;
import io.sluice.bridge.protocol.PayloadFormat;

import static org.assertj.core.api.Assertions.assertThat;

/** The topic mapping of docs/bridge-mqtt.md#topics, MQTT's matching rules, and values read back out of message frames. */
class MqttTopicsTest {

    @Test
    void filtersMapToTheBridgePatternUpToTheFirstWildcard() {
        assertThat(MqttTopics.map("scores/live/football").pattern()).isEqualTo("/scores/live/football");
        assertThat(MqttTopics.map("scores/live/#").pattern()).isEqualTo("/scores/live/*");
        assertThat(MqttTopics.map("scores/+/football").pattern()).isEqualTo("/scores/*");
        assertThat(MqttTopics.map("#").pattern()).isEqualTo("/*");
        assertThat(MqttTopics.map("+/x").pattern()).isEqualTo("/*");
        for (String refused : new String[] {"", "a/#/b", "a/b#", "a/x+", "$SYS/#", "$share/g/a", "a/*", "a/\0"}) {
            assertThat(MqttTopics.map(refused).refused()).as(refused).isTrue();
        }
    }

    @Test
    void topicNamesAreEndpointsWithoutTheirSlashAndWhatCannotBeANameIsNotMapped() {
        assertThat(MqttTopics.endpointOf("scores/live/football")).isEqualTo("/scores/live/football");
        for (String refused : new String[] {"", "a/+", "a/#", "a/*", "$SYS/x"}) {
            assertThat(MqttTopics.endpointOf(refused)).as(refused).isNull();
        }
        assertThat(MqttTopics.topicOf("/scores/live/football")).isEqualTo("scores/live/football");
        // A record key with a wildcard character cannot be a PUBLISH topic name: not delivered over MQTT.
        assertThat(MqttTopics.topicOf("/scores/a+b")).isNull();
        assertThat(MqttTopics.topicOf("/scores/#")).isNull();
    }

    @Test
    void matchingFollowsMqtt() {
        assertThat(MqttTopics.matches("a/+/c", "a/b/c")).isTrue();
        assertThat(MqttTopics.matches("a/+/c", "a/b/d")).isFalse();
        assertThat(MqttTopics.matches("a/+/c", "a/b/c/d")).isFalse();
        assertThat(MqttTopics.matches("a/+", "a/b")).isTrue();
        assertThat(MqttTopics.matches("a/+", "a/b/c")).isFalse();
        assertThat(MqttTopics.matches("a/#", "a/b/c")).isTrue();
        assertThat(MqttTopics.matches("a/#", "a")).isTrue();
        assertThat(MqttTopics.matches("#", "a/b")).isTrue();
        assertThat(MqttTopics.matches("a/b", "a/b")).isTrue();
        assertThat(MqttTopics.matches("a/b", "a/bc")).isFalse();
        assertThat(MqttTopics.matches("a//c", "a//c")).isTrue();
        assertThat(MqttTopics.matches("a/+/c", "a//c")).isTrue();
    }

    @Test
    void aFramesPayloadIsTheRecordValueAsItWasWritten() {
        MessageEncoder encoder = new MessageEncoder(UnpooledByteBufAllocator.DEFAULT);
        check(encoder.message("/t/\",\"format\":\"x", "e-0", 0, 1, 2, "{\"a\": [1, 2]}".getBytes(StandardCharsets.UTF_8)),
                PayloadFormat.JSON, "{\"a\": [1, 2]}".getBytes(StandardCharsets.UTF_8));
        check(encoder.message("/t/k", "e-0", 0, 1, 2, "line \"one\"\nzwei ü".getBytes(StandardCharsets.UTF_8)),
                PayloadFormat.TEXT, "line \"one\"\nzwei ü".getBytes(StandardCharsets.UTF_8));
        check(encoder.message("/t/k", "e-0", 0, 1, 2, new byte[] {0, (byte) 0xff, 1}), PayloadFormat.BASE64, new byte[] {0, (byte) 0xff, 1});
        check(encoder.message("/t/k", "e-0", 0, 1, 2, null), PayloadFormat.NONE, new byte[0]);
        byte[] large = new byte[70_000];
        java.util.Arrays.fill(large, (byte) 'x');
        check(encoder.message("/t/k", "e-0", 0, 1, 2, large), PayloadFormat.TEXT, large);
    }

    private static void check(EncodedMessage message, PayloadFormat format, byte[] value) {
        FramePayload payload = FramePayload.of(message.frame());
        assertThat(payload.format()).isEqualTo(format);
        ByteBuf bytes = payload.bytes();
        byte[] read = new byte[bytes.readableBytes()];
        bytes.getBytes(bytes.readerIndex(), read);
        assertThat(read).isEqualTo(value);
        bytes.release();
        message.release();
    }
}
