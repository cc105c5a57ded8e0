package io.sluice.bridge.asyncapi;

import java.util.List;
import java.util.stream.Collectors;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.google.protobuf.Descriptors.Descriptor;
import com.google.protobuf.Descriptors.EnumDescriptor;
import com.google.protobuf.Descriptors.FieldDescriptor;
import com.google.protobuf.Descriptors.OneofDescriptor;

/**
 * The JSON Schema of the proto3 canonical JSON of a message (protobuf-java-util's JsonFormat, as the bridge sends it):
 * 64-bit integers as strings, bytes as base64, enums by name, maps as objects, well-known types in their JSON forms,
 * field names in lowerCamel unless {@code preservingProtoFieldNames}. Fields holding their default are absent, so no
 * field is required. Messages and enums are named and go to {@code components/schemas}.
 */
final class ProtobufJsonSchemas {

    private static final JsonNodeFactory JSON = JsonNodeFactory.instance;
    private static final List<String> WRAPPERS = List.of("DoubleValue", "FloatValue", "Int64Value", "UInt64Value",
            "Int32Value", "UInt32Value", "BoolValue", "StringValue", "BytesValue");

    private final SchemaSink sink;
    private final boolean protoNames;

    ProtobufJsonSchemas(SchemaSink sink, boolean preservingProtoFieldNames) {
        this.sink = sink;
        this.protoNames = preservingProtoFieldNames;
    }

    JsonNode of(Descriptor message) {
        JsonNode known = wellKnown(message);
        if (known != null) {
            return known;
        }
        return sink.ref(message.getFullName(), () -> message(message));
    }

    private JsonNode message(Descriptor message) {
        ObjectNode node = type("object").put("description", "Protobuf message " + message.getFullName()
                + " (proto3 JSON: fields holding their default value are absent)" + oneofs(message));
        ObjectNode properties = node.putObject("properties");
        for (FieldDescriptor field : message.getFields()) {
            properties.set(protoNames ? field.getName() : field.getJsonName(), field(field));
        }
        return node.put("additionalProperties", false);
    }

    private String oneofs(Descriptor message) {
        StringBuilder text = new StringBuilder();
        for (OneofDescriptor oneof : message.getRealOneofs()) {
            text.append("; oneof ").append(oneof.getName()).append(": at most one of ")
                    .append(oneof.getFields().stream().map(f -> protoNames ? f.getName() : f.getJsonName())
                            .collect(Collectors.joining(", ")));
        }
        return text.toString();
    }

    private JsonNode field(FieldDescriptor field) {
        if (field.isMapField()) {
            Descriptor entry = field.getMessageType();
            return type("object").put("description", "map, keys as strings")
                    .set("additionalProperties", single(entry.findFieldByNumber(2)));
        }
        JsonNode one = single(field);
        return field.isRepeated() ? type("array").set("items", one) : one;
    }

    private JsonNode single(FieldDescriptor field) {
        return switch (field.getJavaType()) {
            case INT -> field.getType() == FieldDescriptor.Type.UINT32 || field.getType() == FieldDescriptor.Type.FIXED32
                    ? type("integer").put("minimum", 0).put("maximum", 4294967295L)
                    : type("integer").put("minimum", Integer.MIN_VALUE).put("maximum", Integer.MAX_VALUE);
            case LONG -> int64();
            case FLOAT, DOUBLE -> AvroJsonSchemas.floating();
            case BOOLEAN -> type("boolean");
            case STRING -> type("string");
            case BYTE_STRING -> AvroJsonSchemas.base64("Protobuf bytes");
            case ENUM -> enumeration(field.getEnumType());
            case MESSAGE -> of(field.getMessageType());
        };
    }

    private static ObjectNode int64() {
        return type("string").put("pattern", "^-?[0-9]+$")
                .put("description", "a 64-bit integer as a string (proto3 JSON); a publish may also give a number");
    }

    private JsonNode enumeration(EnumDescriptor type) {
        if (type.getFullName().equals("google.protobuf.NullValue")) {
            return type("null");
        }
        return sink.ref(type.getFullName(), () -> {
            ObjectNode node = type("string").put("description", "Protobuf enum " + type.getFullName() + ", by name");
            ArrayNode names = node.putArray("enum");
            type.getValues().forEach(v -> names.add(v.getName()));
            return node;
        });
    }

    /** The JSON forms of google.protobuf's well-known types, or null for other messages. */
    private JsonNode wellKnown(Descriptor message) {
        String name = message.getFullName();
        if (!name.startsWith("google.protobuf.")) {
            return null;
        }
        String simple = name.substring("google.protobuf.".length());
        if (WRAPPERS.contains(simple)) {
            return single(message.findFieldByNumber(1));
        }
        return switch (simple) {
            case "Timestamp" -> type("string").put("format", "date-time").put("description", "RFC 3339 timestamp");
            case "Duration" -> type("string").put("pattern", "^-?[0-9]+(\\.[0-9]+)?s$").put("description", "seconds, e.g. 1.500s");
            case "Struct" -> type("object");
            case "Value" -> JSON.objectNode().put("description", "any JSON value");
            case "ListValue" -> type("array");
            case "NullValue" -> type("null");
            case "FieldMask" -> type("string").put("description", "comma-separated lowerCamel field paths");
            case "Empty" -> type("object").put("additionalProperties", false);
            case "Any" -> type("object").put("description", "a message of a type in the same schema, with its full type URL")
                    .set("required", JSON.arrayNode().add("@type"));
            default -> null;
        };
    }

    private static ObjectNode type(String type) {
        return AvroJsonSchemas.type(type);
    }
}
