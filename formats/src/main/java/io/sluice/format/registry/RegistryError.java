package io.sluice.format.registry;

import com.fasterxml.jackson.databind.JsonNode;

/**
 * A registry's error body, {@code {"error_code": 40403, "message": "Schema not found"}}, as far as it can be read:
 * anything else yields an empty error. The message is the registry's, cut short and stripped of control characters.
 */
record RegistryError(int code, String message) {

    static final int SUBJECT_NOT_FOUND = 40401;
    static final int VERSION_NOT_FOUND = 40402;
    static final int SCHEMA_NOT_FOUND = 40403;

    static RegistryError of(SchemaResponses responses, byte[] body) {
        try {
            JsonNode node = responses.parse(body);
            JsonNode code = node.get("error_code");
            JsonNode message = node.get("message");
            return new RegistryError(code != null && code.canConvertToInt() ? code.intValue() : 0,
                    message != null && message.isTextual() ? RegistryClient.printable(message.textValue()) : "");
        }
        catch (java.io.IOException | RuntimeException e) {
            return new RegistryError(0, "");
        }
    }

    boolean notFound() {
        return code == SUBJECT_NOT_FOUND || code == VERSION_NOT_FOUND || code == SCHEMA_NOT_FOUND;
    }

    boolean isEmpty() {
        return code == 0 && message.isEmpty();
    }

    @Override
    public String toString() {
        return "error_code " + code + (message.isEmpty() ? "" : ": " + message);
    }
}
