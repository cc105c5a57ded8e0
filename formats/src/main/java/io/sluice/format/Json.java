package io.sluice.format;

import java.io.IOException;

import com.fasterxml.jackson.core.exc.StreamConstraintsException;
import com.fasterxml.jackson.databind.JsonNode;

/**
 * The strict JSON reader and compact writer the codecs share ({@link ExactJson}: exactly one value, no duplicate keys,
 * exact numbers), nesting bounded by {@link FormatLimits#maxDepth()}, parsed from decoded text (not bytes, so Jackson's encoding detection cannot take
 * UTF-16 for UTF-8, as MessageEncoder explains).
 */
final class Json {

    private final ExactJson json;

    Json(int maxDepth) {
        json = ExactJson.withDepth(maxDepth);
    }

    JsonNode read(String text) throws DecodeException {
        try {
            JsonNode node = json.read(text);
            if (node == null || node.isMissingNode()) {
                throw new DecodeException("not a JSON value: empty");
            }
            return node;
        }
        catch (IOException e) {
            // Jackson's messages quote the offending token, which is payload: the reason is named, not quoted.
            throw new DecodeException(e instanceof StreamConstraintsException
                    ? "JSON nested deeper, or a number larger, than the limits" : "not exactly one JSON value");
        }
    }

    byte[] write(JsonNode value) throws EncodeException {
        try {
            return json.mapper().writeValueAsBytes(value);
        }
        catch (IOException e) {
            throw new EncodeException("cannot write the value as JSON", e);
        }
    }

    String writeString(JsonNode value) throws EncodeException {
        try {
            return json.mapper().writeValueAsString(value);
        }
        catch (IOException e) {
            throw new EncodeException("cannot write the value as JSON", e);
        }
    }
}
