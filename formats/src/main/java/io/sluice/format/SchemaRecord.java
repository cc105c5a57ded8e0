package io.sluice.format;

import io.sluice.format.registry.SchemaType;

/**
 * What a record part in the Confluent wire format says about its schema, as {@link SchemaCodec#read} found it without
 * waiting for the registry: the id its header names, that schema's language, and the name a record-name subject
 * strategy uses ({@link SubjectNameStrategy}).
 *
 * <p>A step that changes a record (field masking, issue 34) continues from here: the codec that read the bytes decodes
 * them to the JSON of docs/bridge-formats.md against the same parsed schema, and writes the changed JSON back with that
 * schema and this id, so every existing deserializer still reads the record.
 *
 * @param schemaId   the global id the header names
 * @param type       the registered schema's language
 * @param recordName an Avro schema's full name, the Protobuf message type's full name (the one the message-index path
 *                   names), a JSON Schema's {@code title}; null when the schema has none (a JSON Schema without a title)
 */
public record SchemaRecord(int schemaId, SchemaType type, String recordName) {
}
