package io.sluice.format;

import java.util.Base64;

import com.fasterxml.jackson.databind.JsonNode;

/** Names of JSON node types for error messages, and the base64 rule every format shares. */
final class JsonTypes {

    private JsonTypes() {
    }

    static String describe(JsonNode node) {
        if (node == null || node.isMissingNode()) {
            return "nothing";
        }
        return switch (node.getNodeType()) {
            case ARRAY -> "an array";
            case OBJECT, POJO -> "an object";
            case STRING -> "a string";
            case NUMBER -> "a number";
            case BOOLEAN -> "a boolean";
            case NULL -> "null";
            default -> "something else";
        };
    }

    static byte[] base64(JsonNode value, String path) throws EncodeException {
        if (value == null || !value.isTextual()) {
            throw new EncodeException(path + ": expected a base64 string, got " + describe(value));
        }
        try {
            return Base64.getDecoder().decode(value.textValue());
        }
        catch (IllegalArgumentException e) {
            throw new EncodeException(path + ": not valid base64");
        }
    }
}
