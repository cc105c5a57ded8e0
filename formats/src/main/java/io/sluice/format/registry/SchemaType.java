package io.sluice.format.registry;

/** A registered schema's language: the registry's {@code schemaType}, where an absent one means Avro. */
public enum SchemaType {
    AVRO,
    PROTOBUF,
    JSON
}
