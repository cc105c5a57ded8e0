package io.sluice.bridge.protocol;

import java.nio.charset.StandardCharsets;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.UnpooledByteBufAllocator;
import io.netty.channel.embedded.EmbeddedChannel;
import io.netty.handler.codec.http.websocketx.TextWebSocketFrame;
import io.netty.handler.codec.http.websocketx.WebSocket13FrameDecoder;

import static org.assertj.core.api.Assertions.assertThat;

/** The pre-encoded frames are exactly what a standard WebSocket decoder reads, at every length encoding. */
class MessageEncoderTest {

    private static final ObjectMapper JSON = new ObjectMapper();

    @ParameterizedTest
    @ValueSource(ints = {0, 20, 125, 126, 200, 65_535, 65_536, 300_000})
    void framesDecodeAsTextFramesHoldingTheMessage(int padding) throws Exception {
        MessageEncoder encoder = new MessageEncoder(UnpooledByteBufAllocator.DEFAULT);
        String value = "{\"pad\":\"" + "p".repeat(padding) + "\"}";
        EncodedMessage message = encoder.message("/t/k", "epoch-0", 0, 42, 1_700_000_000_000L,
                value.getBytes(StandardCharsets.UTF_8));
        EmbeddedChannel client = new EmbeddedChannel(new WebSocket13FrameDecoder(false, false, 1 << 20, true));
        client.writeInbound(message.frame().retainedDuplicate());
        TextWebSocketFrame frame = client.readInbound();
        JsonNode decoded = JSON.readTree(frame.text());
        frame.release();
        assertThat(decoded.get("type").asText()).isEqualTo("message");
        assertThat(decoded.get("seq").asLong()).isEqualTo(42);
        assertThat(decoded.get("payload").get("pad").asText()).hasSize(padding);
        ByteBuf shared = message.frame();
        assertThat(shared.refCnt()).isEqualTo(1);
        message.release();
        assertThat(shared.refCnt()).isZero();
    }
}
