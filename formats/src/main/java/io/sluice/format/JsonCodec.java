package io.sluice.format;

import com.fasterxml.jackson.databind.JsonNode;

/** {@code json}: the bytes are exactly one JSON value in UTF-8; publish writes the value as compact JSON. */
public final class JsonCodec implements Codec {

    private final Json json;
    private final int maxDepth;

    public JsonCodec(FormatLimits limits) {
        this.json = new Json(limits.maxDepth());
        this.maxDepth = limits.maxDepth();
    }

    @Override
    public JsonNode decode(String topic, byte[] bytes) throws DecodeException {
        if (bytes == null) {
            throw new DecodeException("no value (null)");
        }
        return json.read(Utf8Text.decode(bytes, 0, bytes.length));
    }

    @Override
    public byte[] rewrite(String topic, byte[] bytes, ValueChange change) throws DecodeException, EncodeException {
        return encode(topic, change.apply(decode(topic, bytes)));
    }

    @Override
    public byte[] encode(String topic, JsonNode value) throws EncodeException {
        JsonDepth.check(value, maxDepth);
        return json.write(value);
    }
}
