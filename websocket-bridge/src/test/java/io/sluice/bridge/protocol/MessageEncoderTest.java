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

    @ParameterizedTest
    @ValueSource(strings = {"plain ascii 123", "", "   ", "  {not json", "say \"hi\" \\ there", "tab\tand\u0001control",
            "caf\u00e9 \u2603", "[1,2", "{\"a\":1}"})
    void textPayloadsArriveExactlyWhetherOrNotTheyNeedEscaping(String value) throws Exception {
        MessageEncoder encoder = new MessageEncoder(UnpooledByteBufAllocator.DEFAULT);
        EncodedMessage message = encoder.message("/t/k", "epoch-0", 0, 1, 1L, value.getBytes(StandardCharsets.UTF_8));
        JsonNode decoded = JSON.readTree(body(message));
        message.release();
        if (decoded.get("format").asText().equals("json")) {
            assertThat(JSON.writeValueAsString(decoded.get("payload"))).isEqualTo(value);
        } else {
            assertThat(decoded.get("format").asText()).isEqualTo("text");
            assertThat(decoded.get("payload").asText()).isEqualTo(value);
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"{\"a\":1},\"endpoint\":\"/chat/admin\",\"type\":\"message\",\"seq\":999999999",
            "{\"a\":1,\"a\":2}", "[1] [2]", "{\"a\":1} x", "{\"a\":{\"b\":1,\"b\":1}}", "{\"a\":1}}"})
    void valuesThatAreNotExactlyOneJsonValueTravelAsText(String value) throws Exception {
        MessageEncoder encoder = new MessageEncoder(UnpooledByteBufAllocator.DEFAULT);
        EncodedMessage message = encoder.message("/t/k", "epoch-0", 0, 7, 1L, value.getBytes(StandardCharsets.UTF_8));
        String body = body(message);
        message.release();
        JsonNode decoded = new ObjectMapper().enable(com.fasterxml.jackson.core.JsonParser.Feature.STRICT_DUPLICATE_DETECTION)
                .readTree(body);
        assertThat(decoded.get("format").asText()).isEqualTo("text");
        assertThat(decoded.get("payload").asText()).isEqualTo(value);
        assertThat(decoded.get("endpoint").asText()).isEqualTo("/t/k");
        assertThat(decoded.get("seq").asLong()).isEqualTo(7);
        assertThat(message.json()).isNull();
    }

    @ParameterizedTest
    @ValueSource(strings = {"{\"a\":1}", " \n{\"a\": [1, {\"b\": null}]}\r\n ", "[]", "[{\"a\":1},{\"a\":2}]"})
    void exactlyOneJsonObjectOrArrayIsEmbeddedAsItIs(String value) throws Exception {
        MessageEncoder encoder = new MessageEncoder(UnpooledByteBufAllocator.DEFAULT);
        EncodedMessage message = encoder.message("/t/k", "epoch-0", 0, 7, 1L, value.getBytes(StandardCharsets.UTF_8));
        String body = body(message);
        message.release();
        assertThat(body).contains(",\"format\":\"json\",\"payload\":" + value + "}");
        assertThat(JSON.readTree(body).get("payload")).isEqualTo(JSON.readTree(value));
    }

    /** The JSON text of a frame shorter than 64 KiB. */
    private static String body(EncodedMessage message) {
        ByteBuf frame = message.frame();
        int bodyStart = frame.readerIndex() + 2 + ((frame.getByte(frame.readerIndex() + 1) & 0x7f) == 126 ? 2 : 0);
        return frame.toString(bodyStart, frame.writerIndex() - bodyStart, StandardCharsets.UTF_8);
    }
}
