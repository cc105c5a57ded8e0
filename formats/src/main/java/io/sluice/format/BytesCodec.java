package io.sluice.format;

import java.util.Base64;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.TextNode;

/** {@code bytes}: any bytes, a base64 (RFC 4648, padded) JSON string to clients; publish takes such a string. */
public final class BytesCodec implements Codec {

    @Override
    public JsonNode decode(String topic, byte[] bytes) throws DecodeException {
        if (bytes == null) {
            throw new DecodeException("no value (null)");
        }
        return TextNode.valueOf(Base64.getEncoder().encodeToString(bytes));
    }

    @Override
    public byte[] encode(String topic, JsonNode value) throws EncodeException {
        return JsonTypes.base64(value, "/");
    }
}
