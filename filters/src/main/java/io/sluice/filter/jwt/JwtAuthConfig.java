package io.sluice.filter.jwt;

import java.io.IOException;
import java.util.Objects;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.databind.DeserializationContext;
import com.fasterxml.jackson.databind.JsonMappingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.annotation.JsonDeserialize;
import com.fasterxml.jackson.databind.deser.std.StdDeserializer;
import com.fasterxml.jackson.databind.node.ObjectNode;

import io.sluice.auth.JwtConfig;
import io.sluice.filter.records.RecordLimits;

/**
 * JwtAuth's {@code config}: every field of the shared {@link JwtConfig} (how tokens are validated: the same fields,
 * defaults and validation as the WebSocket bridge's {@code auth.jwt}) at the top level, as before, and the filter's own
 * {@code records} section (the record limits every record-reading filter has, docs/configuration.md).
 *
 * <p>{@code records} is not a JwtConfig field: the bridge binds JwtConfig too and reads no Kafka records through it,
 * so a field there would be one the bridge must refuse. Binding here splits the one YAML object in two, so the
 * JwtConfig schema is written once (its own creator) and both halves keep strict binding: unknown fields are errors
 * with their exact path, {@code records.maxRecordBytes} say.</p>
 *
 * @param jwt     how tokens are validated
 * @param records how much of the produced and fetched records it reads to check their keys, at most (absent: defaults)
 */
@JsonDeserialize(using = JwtAuthConfig.Binder.class)
public record JwtAuthConfig(JwtConfig jwt, RecordLimits records) {

    public JwtAuthConfig {
        Objects.requireNonNull(jwt, "jwt");
        records = RecordLimits.orDefaults(records);
    }

    public JwtAuthConfig(JwtConfig jwt) {
        this(jwt, null);
    }

    /** Binds {@code records} to {@link RecordLimits} and every other field to {@link JwtConfig}. */
    static final class Binder extends StdDeserializer<JwtAuthConfig> {

        private static final long serialVersionUID = 1L;
        static final String RECORDS = "records";

        Binder() {
            super(JwtAuthConfig.class);
        }

        @Override
        public JwtAuthConfig deserialize(JsonParser parser, DeserializationContext context) throws IOException {
            JsonNode tree = context.readTree(parser);
            if (!(tree instanceof ObjectNode object)) {
                return (JwtAuthConfig) context.handleUnexpectedToken(JwtAuthConfig.class, parser);
            }
            ObjectNode jwtFields = object.deepCopy();
            JsonNode records = jwtFields.remove(RECORDS);
            RecordLimits limits = null;
            if (records != null && !records.isNull()) {
                try {
                    limits = context.readTreeAsValue(records, RecordLimits.class);
                } catch (JsonMappingException e) {
                    // Reported (and, for an unknown field, cut) at its place in the file: config.records.<field>.
                    throw JsonMappingException.wrapWithPath(e, JwtAuthConfig.class, RECORDS);
                }
            }
            return new JwtAuthConfig(context.readTreeAsValue(jwtFields, JwtConfig.class), limits);
        }
    }
}
