package io.sluice.bridge.asyncapi;

import java.util.Map;
import java.util.function.Supplier;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;

/**
 * Where derived named types go: {@code components/schemas} of the document, under keys prefixed by the topic (two topics
 * may hold different versions of a type with the same name). A named type is referred to by {@code $ref}, which also
 * makes recursive types (a linked list, a tree) finite. In AsyncAPI a {@code $ref} is resolved against the whole
 * document, so a schema's references must point into it, never into the schema alone.
 */
final class SchemaSink {

    private static final JsonNodeFactory JSON = JsonNodeFactory.instance;

    private final Map<String, JsonNode> schemas;
    private final String prefix;

    SchemaSink(Map<String, JsonNode> schemas, String prefix) {
        this.schemas = schemas;
        this.prefix = prefix;
    }

    /** The {@code $ref} to a named type; {@code derive} runs once per name, after the name is reserved (recursion). */
    ObjectNode ref(String name, Supplier<JsonNode> derive) {
        String key = key(name);
        if (!schemas.containsKey(key)) {
            schemas.put(key, JSON.objectNode());
            schemas.put(key, derive.get());
        }
        return refTo(key);
    }

    String key(String name) {
        return (prefix + "." + name).replaceAll("[^A-Za-z0-9._-]", "_");
    }

    static ObjectNode refTo(String key) {
        return JSON.objectNode().put("$ref", "#/components/schemas/" + key);
    }
}
