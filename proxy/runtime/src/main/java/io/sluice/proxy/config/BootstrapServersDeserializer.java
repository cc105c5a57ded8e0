package io.sluice.proxy.config;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.databind.DeserializationContext;
import com.fasterxml.jackson.databind.JsonMappingException;
import com.fasterxml.jackson.databind.deser.std.StdDeserializer;
import io.sluice.config.HostPort;

/**
 * Accepts bootstrap servers both as Kafka writes them ({@code "h1:9092,h2:9092"}, which is what an environment variable
 * usually holds) and as a YAML list.
 */
final class BootstrapServersDeserializer extends StdDeserializer<List<HostPort>> {

    private static final long serialVersionUID = 1L;

    BootstrapServersDeserializer() {
        super(List.class);
    }

    @Override
    @SuppressWarnings("unchecked")
    public List<HostPort> deserialize(JsonParser p, DeserializationContext ctxt) throws IOException {
        List<HostPort> servers = new ArrayList<>();
        if (p.currentToken() == JsonToken.VALUE_STRING) {
            for (String part : p.getText().split(",")) {
                if (!part.isBlank()) {
                    servers.add(parse(p, part, -1));
                }
            }
            return servers;
        }
        if (p.currentToken() != JsonToken.START_ARRAY) {
            return (List<HostPort>) ctxt.handleUnexpectedToken(List.class, p);
        }
        int index = 0;
        for (JsonToken t = p.nextToken(); t != JsonToken.END_ARRAY; t = p.nextToken(), index++) {
            if (!t.isScalarValue() || t == JsonToken.VALUE_NULL) {
                JsonMappingException failure = JsonMappingException.from(p, "expected host:port");
                failure.prependPath(servers, index);
                throw failure;
            }
            servers.add(parse(p, p.getText(), index));
        }
        return servers;
    }

    private static HostPort parse(JsonParser p, String text, int index) throws JsonMappingException {
        try {
            return HostPort.parse(text);
        }
        catch (IllegalArgumentException e) {
            JsonMappingException failure = JsonMappingException.from(p, e.getMessage(), e);
            if (index >= 0) {
                failure.prependPath(List.of(), index);
            }
            throw failure;
        }
    }
}
