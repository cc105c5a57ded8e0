package io.sluice.bridge.mqtt;

import java.io.IOException;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;

/**
 * A persistent session's record key in the sessions topic: the token's subject and the client identifier, as the JSON
 * array {@code ["subject","client id"]}. The subject is part of the key so that a client identifier is only ever the
 * subject's own: another subject's token using the same identifier names another session (docs/bridge-mqtt.md#sessions).
 * JSON rather than a separator because both parts may contain any character.
 */
record SessionKey(String subject, String clientId) {

    private static final ObjectMapper JSON = new ObjectMapper();

    byte[] bytes() {
        ArrayNode array = JSON.createArrayNode().add(subject).add(clientId);
        try {
            return JSON.writeValueAsBytes(array);
        }
        catch (IOException e) {
            throw new IllegalStateException(e);
        }
    }

    /** The key of a record in the sessions topic, or null when it is not one the bridge writes. */
    static SessionKey parse(byte[] bytes) {
        if (bytes == null) {
            return null;
        }
        try {
            JsonNode node = JSON.readTree(bytes);
            if (node == null || !node.isArray() || node.size() != 2 || !node.get(0).isTextual() || !node.get(1).isTextual()) {
                return null;
            }
            return new SessionKey(node.get(0).asText(), node.get(1).asText());
        }
        catch (IOException e) {
            return null;
        }
    }
}
