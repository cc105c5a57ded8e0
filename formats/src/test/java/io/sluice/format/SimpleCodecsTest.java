package io.sluice.format;

import java.nio.charset.StandardCharsets;

import org.junit.jupiter.api.Test;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.TextNode;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class SimpleCodecsTest {

    private static final ObjectMapper JSON = new ObjectMapper();

    @Test
    void jsonIsExactlyOneValueAndPublishesCompact() throws Exception {
        JsonCodec codec = new JsonCodec(FormatLimits.defaults());
        assertThat(codec.decode("t", "{\"a\": [1, 2.50]}".getBytes(StandardCharsets.UTF_8)).at("/a/1").decimalValue())
                .isEqualByComparingTo("2.50");
        assertThat(codec.decode("t", "\"s\"".getBytes(StandardCharsets.UTF_8))).isEqualTo(TextNode.valueOf("s"));
        assertThatThrownBy(() -> codec.decode("t", "{} {}".getBytes(StandardCharsets.UTF_8))).isInstanceOf(DecodeException.class);
        assertThatThrownBy(() -> codec.decode("t", "{\"a\":1,\"a\":2}".getBytes(StandardCharsets.UTF_8)))
                .isInstanceOf(DecodeException.class);
        // UTF-16 without a byte order mark is valid UTF-8 too: "{", NUL, "}", NUL is not a JSON value.
        assertThatThrownBy(() -> codec.decode("t", new byte[] {'{', 0, '}', 0})).isInstanceOf(DecodeException.class);
        assertThatThrownBy(() -> codec.decode("t", "[".repeat(65).concat("]".repeat(65)).getBytes(StandardCharsets.UTF_8)))
                .isInstanceOf(DecodeException.class);
        assertThatThrownBy(() -> codec.decode("t", new byte[0])).isInstanceOf(DecodeException.class);
        assertThat(codec.encode("t", JSON.readTree("{ \"a\" : [ 1 ] }"))).isEqualTo("{\"a\":[1]}".getBytes(StandardCharsets.UTF_8));
        assertThatThrownBy(() -> codec.encode("t", JSON.readTree("[".repeat(70) + "]".repeat(70))))
                .isInstanceOf(EncodeException.class).hasMessageContaining("deeper than 64");
    }

    @Test
    void stringIsStrictUtf8() throws Exception {
        StringCodec codec = new StringCodec();
        assertThat(codec.decode("t", "é{".getBytes(StandardCharsets.UTF_8))).isEqualTo(TextNode.valueOf("é{"));
        assertThatThrownBy(() -> codec.decode("t", new byte[] {(byte) 0xc3})).isInstanceOf(DecodeException.class)
                .hasMessage("not valid UTF-8");
        assertThatThrownBy(() -> codec.decode("t", new byte[] {(byte) 0xed, (byte) 0xa0, (byte) 0x80}))
                .as("a UTF-16 surrogate encoded as UTF-8").isInstanceOf(DecodeException.class);
        assertThat(codec.encode("t", TextNode.valueOf("é"))).isEqualTo("é".getBytes(StandardCharsets.UTF_8));
        assertThatThrownBy(() -> codec.encode("t", JSON.readTree("1"))).isInstanceOf(EncodeException.class);
    }

    @Test
    void bytesAreBase64() throws Exception {
        BytesCodec codec = new BytesCodec();
        assertThat(codec.decode("t", new byte[] {0, (byte) 0xff, 7})).isEqualTo(TextNode.valueOf("AP8H"));
        assertThat(codec.encode("t", TextNode.valueOf("AP8H"))).containsExactly(0, 0xff, 7);
        assertThatThrownBy(() -> codec.encode("t", TextNode.valueOf("not base64!"))).isInstanceOf(EncodeException.class);
    }
}
