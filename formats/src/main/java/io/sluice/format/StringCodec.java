package io.sluice.format;

import java.nio.charset.StandardCharsets;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.TextNode;

/** {@code string}: the bytes are UTF-8 text, a JSON string to clients; publish takes a JSON string only. */
public final class StringCodec implements Codec {

    @Override
    public JsonNode decode(String topic, byte[] bytes) throws DecodeException {
        if (bytes == null) {
            throw new DecodeException("no value (null)");
        }
        return TextNode.valueOf(Utf8Text.decode(bytes, 0, bytes.length));
    }

    @Override
    public byte[] encode(String topic, JsonNode value) throws EncodeException {
        if (value == null || !value.isTextual()) {
            throw new EncodeException("/: expected a string, got " + JsonTypes.describe(value));
        }
        return value.textValue().getBytes(StandardCharsets.UTF_8);
    }
}
