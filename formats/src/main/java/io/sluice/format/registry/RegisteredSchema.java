package io.sluice.format.registry;

import java.util.List;

/** A schema as a Confluent-compatible registry returns it: its global id, language, text and the schemas it imports. */
public record RegisteredSchema(int id, SchemaType type, String text, List<SchemaReference> references) {

    public RegisteredSchema {
        references = references == null ? List.of() : List.copyOf(references);
    }
}
