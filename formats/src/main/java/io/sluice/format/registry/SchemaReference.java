package io.sluice.format.registry;

/**
 * A schema a registered schema imports: {@code name} is how the referring schema names it (an Avro full name, a
 * Protobuf import path, a JSON Schema {@code $ref} URL), {@code subject} and {@code version} where the registry keeps it.
 */
public record SchemaReference(String name, String subject, int version) {
}
