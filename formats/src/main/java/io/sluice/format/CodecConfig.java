package io.sluice.format;

import java.util.List;
import java.util.Set;

import com.fasterxml.jackson.annotation.JsonCreator;
import com.fasterxml.jackson.annotation.JsonProperty;

/**
 * One side (key or value) of a {@link FormatRule}: {@code {type: avro}} and the like.
 *
 * @param type                      json, string, bytes, avro, protobuf or json-schema
 * @param registry                  the bytes carry the Confluent header and the schema comes from the registry; the
 *                                  default for avro, protobuf and json-schema unless {@code schemaFile} is given
 * @param schemaFile                a local schema for bytes with no header: .avsc (avro), .desc descriptor set or .proto
 *                                  (protobuf), .json (json-schema)
 * @param message                   protobuf: the message type's full name; required with a local schema, and with a
 *                                  registry the type publish writes (default: the file's first message)
 * @param preservingProtoFieldNames protobuf: JSON field names as in the .proto (snake_case) instead of lowerCamel
 */
public record CodecConfig(String type, boolean registry, String schemaFile, String message,
                          boolean preservingProtoFieldNames) {

    static final Set<String> TYPES = Set.of("json", "string", "bytes", "avro", "protobuf", "json-schema");
    private static final Set<String> SCHEMA_TYPES = Set.of("avro", "protobuf", "json-schema");

    @JsonCreator
    static CodecConfig fromYaml(@JsonProperty("type") String type,
                                @JsonProperty("registry") Boolean registry,
                                @JsonProperty("schemaFile") String schemaFile,
                                @JsonProperty("message") String message,
                                @JsonProperty("preservingProtoFieldNames") Boolean preservingProtoFieldNames) {
        boolean fromRegistry = registry != null ? registry : SCHEMA_TYPES.contains(type) && schemaFile == null;
        return new CodecConfig(type, fromRegistry, schemaFile, message, Boolean.TRUE.equals(preservingProtoFieldNames));
    }

    /** Problems, each naming its field under {@code prefix} (e.g. {@code formats[0].value}). */
    void validate(String prefix, List<String> problems) {
        if (type == null || !TYPES.contains(type)) {
            problems.add(prefix + ".type: must be one of json, string, bytes, avro, protobuf, json-schema");
            return;
        }
        boolean schemaType = SCHEMA_TYPES.contains(type);
        if (!schemaType && (registry || schemaFile != null)) {
            problems.add(prefix + ": " + type + " takes no registry or schemaFile");
        }
        if (schemaType && registry && schemaFile != null) {
            problems.add(prefix + ": registry: true and schemaFile exclude each other");
        }
        if (schemaType && !registry && schemaFile == null) {
            problems.add(prefix + ".schemaFile: required when registry is false");
        }
        if ("protobuf".equals(type) && schemaFile != null && (message == null || message.isBlank())) {
            problems.add(prefix + ".message: required with a local protobuf schemaFile");
        }
        if (!"protobuf".equals(type) && (message != null || preservingProtoFieldNames)) {
            problems.add(prefix + ": message and preservingProtoFieldNames are for protobuf only");
        }
    }
}
