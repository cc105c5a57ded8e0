package io.sluice.bridge.config;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.databind.DeserializationContext;
import com.fasterxml.jackson.databind.deser.std.StdDeserializer;

/**
 * Accepts topics as a YAML list or as one comma-separated string, which is what an environment variable such as
 * {@code SLUICE_BRIDGE_TOPICS} holds.
 */
final class TopicsDeserializer extends StdDeserializer<List<String>> {

    private static final long serialVersionUID = 1L;

    TopicsDeserializer() {
        super(List.class);
    }

    @Override
    @SuppressWarnings("unchecked")
    public List<String> deserialize(JsonParser p, DeserializationContext ctxt) throws IOException {
        List<String> topics = new ArrayList<>();
        if (p.currentToken() == JsonToken.VALUE_STRING) {
            for (String part : p.getText().split(",")) {
                if (!part.isBlank()) {
                    topics.add(part.strip());
                }
            }
            return topics;
        }
        if (p.currentToken() != JsonToken.START_ARRAY) {
            return (List<String>) ctxt.handleUnexpectedToken(List.class, p);
        }
        for (JsonToken t = p.nextToken(); t != JsonToken.END_ARRAY; t = p.nextToken()) {
            if (t != JsonToken.VALUE_STRING) {
                return (List<String>) ctxt.handleUnexpectedToken(String.class, p);
            }
            topics.add(p.getText().strip());
        }
        return topics;
    }
}
