package io.sluice.bridge.asyncapi;

import org.apache.avro.LogicalType;
import org.apache.avro.LogicalTypes;
import org.apache.avro.Schema;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;

/**
 * The JSON Schema of the JSON the bridge makes of an Avro value (the mapping of docs/bridge-formats.md, AvroJson):
 * longs as a number up to 2^53-1 or else a string of digits, bytes and fixed as base64 strings, decimals as strings,
 * enums as their symbols, unions unwrapped (oneOf their branches), NaN and infinities as strings. Records, enums and
 * fixed types are named: they go to {@code components/schemas} and are referred to.
 */
final class AvroJsonSchemas {

    private static final JsonNodeFactory JSON = JsonNodeFactory.instance;
    static final long MAX_SAFE_INTEGER = 9007199254740991L;

    private final SchemaSink sink;

    AvroJsonSchemas(SchemaSink sink) {
        this.sink = sink;
    }

    JsonNode of(Schema schema) {
        LogicalType logical = schema.getLogicalType();
        if (logical instanceof LogicalTypes.Decimal decimal) {
            return JSON.objectNode().put("type", "string").put("pattern", "^-?[0-9]+(\\.[0-9]+)?$")
                    .put("description", "Avro decimal (precision " + decimal.getPrecision() + ", scale "
                            + decimal.getScale() + ") as a string of the exact decimal");
        }
        return switch (schema.getType()) {
            case NULL -> type("null");
            case BOOLEAN -> type("boolean");
            case INT -> withLogical(type("integer").put("minimum", Integer.MIN_VALUE).put("maximum", Integer.MAX_VALUE), logical);
            case LONG -> withLogical(longSchema(), logical);
            case FLOAT, DOUBLE -> floating();
            case STRING -> logical != null && "uuid".equals(logical.getName()) ? type("string").put("format", "uuid") : type("string");
            case BYTES -> base64("Avro bytes");
            case FIXED -> sink.ref(schema.getFullName(),
                    () -> base64("Avro fixed " + schema.getFullName() + " of " + schema.getFixedSize() + " bytes"));
            case ENUM -> sink.ref(schema.getFullName(), () -> enumSchema(schema));
            case ARRAY -> type("array").set("items", of(schema.getElementType()));
            case MAP -> type("object").set("additionalProperties", of(schema.getValueType()));
            case RECORD -> sink.ref(schema.getFullName(), () -> record(schema));
            case UNION -> union(schema);
        };
    }

    /** Exact as a JavaScript number up to 2^53-1; beyond that, the bridge sends a string of the exact value. */
    static ObjectNode longSchema() {
        ObjectNode node = JSON.objectNode();
        ArrayNode oneOf = node.putArray("oneOf");
        oneOf.add(type("integer").put("minimum", -MAX_SAFE_INTEGER).put("maximum", MAX_SAFE_INTEGER));
        oneOf.add(type("string").put("pattern", "^-?[0-9]+$")
                .put("description", "a 64-bit integer beyond 2^53-1 in magnitude, as a string of its exact value"));
        return node.put("description", "Avro long: a number when |v| <= 2^53-1, else a string");
    }

    /** A number, or NaN and the infinities as strings (JSON has no literal for them). */
    static ObjectNode floating() {
        ObjectNode node = JSON.objectNode();
        ArrayNode oneOf = node.putArray("oneOf");
        oneOf.add(type("number"));
        oneOf.add(type("string").set("enum", JSON.arrayNode().add("NaN").add("Infinity").add("-Infinity")));
        return node;
    }

    static ObjectNode base64(String what) {
        return type("string").put("contentEncoding", "base64").put("description", what + ", base64 (RFC 4648, with padding)");
    }

    private static ObjectNode withLogical(ObjectNode node, LogicalType logical) {
        if (logical != null) {
            node.put("description", "Avro " + logical.getName() + ": the underlying number");
        }
        return node;
    }

    private static ObjectNode enumSchema(Schema schema) {
        ObjectNode node = type("string");
        ArrayNode symbols = node.putArray("enum");
        schema.getEnumSymbols().forEach(symbols::add);
        return node.put("description", "Avro enum " + schema.getFullName());
    }

    private JsonNode record(Schema schema) {
        ObjectNode node = type("object").put("description", "Avro record " + schema.getFullName()
                + (schema.getDoc() == null ? "" : ": " + schema.getDoc()));
        ObjectNode properties = node.putObject("properties");
        ArrayNode required = JSON.arrayNode();
        for (Schema.Field field : schema.getFields()) {
            JsonNode fieldSchema = of(field.schema());
            if (field.doc() != null && fieldSchema instanceof ObjectNode object && !object.has("$ref")) {
                object.put("description", field.doc());
            }
            properties.set(field.name(), fieldSchema);
            // Received records carry every field; a publish may leave out the fields that have a default.
            if (!field.hasDefaultValue()) {
                required.add(field.name());
            }
        }
        if (!required.isEmpty()) {
            node.set("required", required);
        }
        return node.put("additionalProperties", false);
    }

    private JsonNode union(Schema schema) {
        ObjectNode node = JSON.objectNode();
        ArrayNode oneOf = node.putArray("oneOf");
        schema.getTypes().forEach(branch -> oneOf.add(of(branch)));
        return node.put("description", "Avro union, unwrapped: the value of one branch (a publish takes the first branch it fits)");
    }

    static ObjectNode type(String type) {
        return JSON.objectNode().put("type", type);
    }
}
