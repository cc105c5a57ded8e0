package io.sluice.bridge.protocol;

import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.List;
import java.util.stream.Stream;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.params.provider.ValueSource;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.UnpooledByteBufAllocator;
import io.netty.channel.embedded.EmbeddedChannel;
import io.netty.handler.codec.http.websocketx.TextWebSocketFrame;
import io.netty.handler.codec.http.websocketx.WebSocket13FrameDecoder;
import io.sluice.bridge.config.DeltaConfig;

import static org.assertj.core.api.Assertions.assertThat;

/** The pre-encoded frames are exactly what a standard WebSocket decoder reads, at every length encoding. */
class MessageEncoderTest {

    private static final ObjectMapper JSON = new ObjectMapper();
    // As strict as a browser's JSON.parse on a message: one value, nothing after it, no control characters raw.
    private static final ObjectMapper STRICT = new ObjectMapper()
            .enable(com.fasterxml.jackson.databind.DeserializationFeature.FAIL_ON_TRAILING_TOKENS);

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

    /**
     * Values in other encodings, or in malformed UTF-8, never travel as {@code json}: what is embedded raw must be JSON
     * text in UTF-8, so the check runs on the decoded text. UTF-16 and UTF-32 without a byte order mark are valid UTF-8
     * (ASCII and NUL bytes), and a parser that detects the encoding from the bytes would read {@code 7B 00 7D 00} as
     * {@code {}} and embed the NULs into the message. The client must get the value exactly, in a message that is
     * itself strict JSON.
     */
    @ParameterizedTest
    @MethodSource("hostileEncodings")
    void otherEncodingsAndMalformedUtf8NeverTravelAsJson(String name, byte[] value, PayloadFormat expected) throws Exception {
        MessageEncoder encoder = new MessageEncoder(UnpooledByteBufAllocator.DEFAULT);
        EncodedMessage message = encoder.message("/t/k", "epoch-0", 0, 9, 1L, value);
        String body = body(message);
        message.release();
        JsonNode decoded = STRICT.readTree(body);
        assertThat(decoded.get("endpoint").asText()).isEqualTo("/t/k");
        assertThat(decoded.get("seq").asLong()).isEqualTo(9);
        assertThat(decoded.get("format").asText()).as(name).isEqualTo(expected.wireName());
        byte[] received = switch (expected) {
            case TEXT -> decoded.get("payload").asText().getBytes(StandardCharsets.UTF_8);
            case BASE64 -> Base64.getDecoder().decode(decoded.get("payload").asText());
            // Embedded byte for byte: the payload is exactly the value's text.
            case JSON -> body.contains("\"payload\":" + new String(value, StandardCharsets.UTF_8) + "}")
                    && decoded.get("payload").equals(STRICT.readTree(value)) ? value : null;
            case NONE -> null;
        };
        assertThat(received).as(name).isEqualTo(value);
        assertThat(message.json() != null).isEqualTo(expected == PayloadFormat.JSON);
    }

    static Stream<Arguments> hostileEncodings() {
        return Stream.of(
                Arguments.of("UTF-16LE {}", bytes(0x7B, 0x00, 0x7D, 0x00), PayloadFormat.TEXT),
                Arguments.of("UTF-16LE [1]", bytes(0x5B, 0x00, 0x31, 0x00, 0x5D, 0x00), PayloadFormat.TEXT),
                Arguments.of("UTF-16BE {}", bytes(0x00, 0x7B, 0x00, 0x7D), PayloadFormat.TEXT),
                Arguments.of("UTF-32LE {}", bytes(0x7B, 0, 0, 0, 0x7D, 0, 0, 0), PayloadFormat.TEXT),
                Arguments.of("UTF-32BE []", bytes(0, 0, 0, 0x5B, 0, 0, 0, 0x5D), PayloadFormat.TEXT),
                Arguments.of("{} then NUL", bytes(0x7B, 0x7D, 0x00), PayloadFormat.TEXT),
                Arguments.of("vertical tab before {}", bytes(0x0B, 0x7B, 0x7D), PayloadFormat.TEXT),
                Arguments.of("UTF-8 BOM before {\"a\":1}", concat(bytes(0xEF, 0xBB, 0xBF), "{\"a\":1}"), PayloadFormat.TEXT),
                Arguments.of("UTF-16LE BOM {}", bytes(0xFF, 0xFE, 0x7B, 0x00, 0x7D, 0x00), PayloadFormat.BASE64),
                Arguments.of("UTF-16BE BOM {}", bytes(0xFE, 0xFF, 0x00, 0x7B, 0x00, 0x7D), PayloadFormat.BASE64),
                Arguments.of("overlong {", bytes(0xC1, 0xBB, 0x7D), PayloadFormat.BASE64),
                Arguments.of("overlong NUL in a string", concat("{\"a\":\"", bytes(0xC0, 0x80), "\"}"), PayloadFormat.BASE64),
                Arguments.of("UTF-8-encoded lone surrogate", concat("{\"a\":\"", bytes(0xED, 0xA0, 0x80), "\"}"), PayloadFormat.BASE64),
                // An escaped lone surrogate is JSON text by the grammar (RFC 8259 section 8.2), and JSON.parse takes it.
                Arguments.of("escaped lone surrogate", "{\"a\":\"\\ud800\"}".getBytes(StandardCharsets.US_ASCII), PayloadFormat.JSON));
    }

    private static byte[] bytes(int... values) {
        byte[] bytes = new byte[values.length];
        for (int i = 0; i < values.length; i++) {
            bytes[i] = (byte) values[i];
        }
        return bytes;
    }

    private static byte[] concat(Object... parts) {
        java.io.ByteArrayOutputStream out = new java.io.ByteArrayOutputStream();
        for (Object part : parts) {
            out.writeBytes(part instanceof String s ? s.getBytes(StandardCharsets.UTF_8) : (byte[]) part);
        }
        return out.toByteArray();
    }

    /**
     * A delta is computed only when its worst case is bounded: both values within {@code maxValueBytes}, and the work
     * estimated from their shapes within {@code maxDiffWork}. Two arrays that differ everywhere are the expensive case
     * (the longest-common-subsequence search is quadratic in their lengths), however small they are in bytes.
     */
    @org.junit.jupiter.api.Test
    void deltasAreComputedOnlyWithinTheLimits() throws Exception {
        MessageEncoder encoder = new MessageEncoder(UnpooledByteBufAllocator.DEFAULT);
        DeltaConfig limits = DeltaConfig.defaults();

        ByteBuf small = encoder.delta(json(encoder, 1, "{\"home\":1,\"events\":[\"a\"]}"),
                json(encoder, 2, "{\"home\":2,\"events\":[\"a\",\"b\"]}"), limits);
        assertThat(small).as("a small change within the limits").isNotNull();
        small.release();

        // About 8 KiB each, far below maxValueBytes, but 2000 x 2000 elements to match.
        EncodedMessage evens = json(encoder, 3, numbers(2000, 0));
        EncodedMessage odds = json(encoder, 4, numbers(2000, 1));
        assertThat(evens.payloadBytes()).isLessThan(limits.maxValueBytes());
        assertThat(JsonShape.diffWork(evens.shape(), odds.shape())).isGreaterThan(limits.maxDiffWork());
        assertThat(encoder.delta(evens, odds, limits)).as("arrays whose diff is too much work").isNull();
        assertThat(encoder.delta(evens, odds, new DeltaConfig(limits.maxValueBytes(), Long.MAX_VALUE)))
                .as("the same arrays without the work limit").isNotNull().satisfies(ByteBuf::release);

        // One key changes, but the values are larger than maxValueBytes.
        String pad = "x".repeat(limits.maxValueBytes());
        EncodedMessage large = json(encoder, 5, "{\"pad\":\"" + pad + "\",\"n\":1}");
        EncodedMessage larger = json(encoder, 6, "{\"pad\":\"" + pad + "\",\"n\":2}");
        assertThat(JsonShape.diffWork(large.shape(), larger.shape())).isLessThan(limits.maxDiffWork());
        assertThat(encoder.delta(large, larger, limits)).as("values over maxValueBytes").isNull();

        EncodedMessage a = json(encoder, 7, "{\"n\":1}");
        EncodedMessage b = json(encoder, 8, "{\"n\":2}");
        assertThat(encoder.delta(a, b, new DeltaConfig(0, limits.maxDiffWork()))).as("maxValueBytes 0").isNull();
        assertThat(encoder.delta(a, b, new DeltaConfig(limits.maxValueBytes(), 0))).as("maxDiffWork 0").isNull();
        for (EncodedMessage m : List.of(evens, odds, large, larger, a, b)) {
            m.release();
        }
    }

    @org.junit.jupiter.api.Test
    void theShapeCountsNodesNestingAndTheLongestArray() throws Exception {
        JsonShape shape = JsonShape.of(JSON.readTree("{\"a\":[1,2,3],\"b\":{\"c\":[[4],[]]}}"));
        // root, a, 1, 2, 3, b, c, [4], 4, []
        assertThat(shape).isEqualTo(new JsonShape(10, 4, 3));
    }

    private static EncodedMessage json(MessageEncoder encoder, long seq, String value) {
        EncodedMessage message = encoder.message("/t/k", "epoch-0", 0, seq, 1L, value.getBytes(StandardCharsets.UTF_8));
        assertThat(message.json()).isNotNull();
        return message;
    }

    private static String numbers(int count, int parity) {
        StringBuilder out = new StringBuilder("[");
        for (int i = 0; i < count; i++) {
            out.append(i == 0 ? "" : ",").append(2 * i + parity);
        }
        return out.append(']').toString();
    }

    /** The JSON text of a frame shorter than 64 KiB. */
    private static String body(EncodedMessage message) {
        ByteBuf frame = message.frame();
        int bodyStart = frame.readerIndex() + 2 + ((frame.getByte(frame.readerIndex() + 1) & 0x7f) == 126 ? 2 : 0);
        return frame.toString(bodyStart, frame.writerIndex() - bodyStart, StandardCharsets.UTF_8);
    }
}
