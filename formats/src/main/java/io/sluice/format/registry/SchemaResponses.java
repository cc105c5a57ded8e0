package io.sluice.format.registry;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.StreamReadConstraints;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;

/**
 * Reads the registry's JSON answers into {@link RegisteredSchema}s, trusting nothing: the envelope is a few fields
 * deep, so nesting is capped low; a schema's text may be as long as the whole answer but no longer; every field is
 * checked for its type before use.
 */
final class SchemaResponses {

    /** The envelope is {schema, schemaType, references: [{name, subject, version}]}: four levels with room to spare. */
    static final int MAX_NESTING = 16;

    private final ObjectMapper json;

    SchemaResponses(long maxResponseBytes) {
        int max = (int) Math.min(Integer.MAX_VALUE, maxResponseBytes);
        JsonFactory factory = JsonFactory.builder()
                .streamReadConstraints(StreamReadConstraints.builder()
                        .maxNestingDepth(MAX_NESTING)
                        .maxStringLength(max)
                        .maxNameLength(1024)
                        .maxNumberLength(32)
                        .maxDocumentLength(maxResponseBytes)
                        .build())
                .build();
        this.json = new ObjectMapper(factory);
    }

    JsonNode parse(byte[] bytes) throws IOException {
        JsonNode node = json.readTree(bytes);
        if (node == null || node.isMissingNode()) {
            throw new IOException("empty answer");
        }
        return node;
    }

    /** {@code GET /schemas/ids/{id}}: the answer has no id of its own. */
    RegisteredSchema schema(JsonNode node, int id, String what) throws SchemaUnavailableException {
        if (!node.isObject()) {
            throw malformed(what, "not a JSON object");
        }
        return new RegisteredSchema(id, type(node, what), text(node, what), references(node, what));
    }

    /** {@code GET /subjects/{subject}/versions/{version}}: {subject, version, id, schema, schemaType, references}. */
    RegisteredSchema versionedSchema(JsonNode node, String what) throws SchemaUnavailableException {
        if (!node.isObject()) {
            throw malformed(what, "not a JSON object");
        }
        JsonNode id = node.get("id");
        if (id == null || !id.canConvertToInt() || !id.isIntegralNumber() || id.intValue() < 0) {
            throw malformed(what, "no schema id");
        }
        return new RegisteredSchema(id.intValue(), type(node, what), text(node, what), references(node, what));
    }

    /** The body of {@code POST /subjects/{subject}}: the schema as the registry gave it, {schema, schemaType, references}. */
    byte[] lookUpBody(RegisteredSchema schema) {
        ObjectNode body = json.createObjectNode();
        body.put("schema", schema.text());
        body.put("schemaType", schema.type().name());
        if (!schema.references().isEmpty()) {
            ArrayNode refs = body.putArray("references");
            for (SchemaReference ref : schema.references()) {
                refs.addObject().put("name", ref.name()).put("subject", ref.subject()).put("version", ref.version());
            }
        }
        try {
            return json.writeValueAsBytes(body);
        }
        catch (IOException e) {
            throw new IllegalStateException("a JSON tree did not write", e);
        }
    }

    /**
     * {@code POST /subjects/{subject}}'s answer, {subject, version, id, schema, ...}: only its id is read (registries
     * differ in what else they echo), and the schema is the one asked about, under that id.
     */
    RegisteredSchema lookedUp(JsonNode node, RegisteredSchema asked, String what) throws SchemaUnavailableException {
        if (!node.isObject()) {
            throw malformed(what, "not a JSON object");
        }
        JsonNode id = node.get("id");
        if (id == null || !id.canConvertToInt() || !id.isIntegralNumber() || id.intValue() < 0) {
            throw malformed(what, "no schema id");
        }
        return new RegisteredSchema(id.intValue(), asked.type(), asked.text(), asked.references());
    }

    private static SchemaType type(JsonNode node, String what) throws SchemaUnavailableException {
        JsonNode type = node.get("schemaType");
        if (type == null || type.isNull()) {
            return SchemaType.AVRO;
        }
        if (!type.isTextual()) {
            throw malformed(what, "schemaType is not a string");
        }
        try {
            return SchemaType.valueOf(type.textValue().toUpperCase(Locale.ROOT));
        }
        catch (IllegalArgumentException e) {
            throw new SchemaUnavailableException(what + ": schemaType '" + RegistryClient.printable(type.textValue())
                    + "' is not supported (AVRO, PROTOBUF or JSON)", false);
        }
    }

    private static String text(JsonNode node, String what) throws SchemaUnavailableException {
        JsonNode schema = node.get("schema");
        if (schema == null || !schema.isTextual()) {
            throw malformed(what, "no schema text");
        }
        return schema.textValue();
    }

    private static List<SchemaReference> references(JsonNode node, String what) throws SchemaUnavailableException {
        JsonNode refs = node.get("references");
        if (refs == null || refs.isNull()) {
            return List.of();
        }
        if (!refs.isArray()) {
            throw malformed(what, "references is not a list");
        }
        List<SchemaReference> out = new ArrayList<>(refs.size());
        for (JsonNode ref : refs) {
            JsonNode name = ref.get("name");
            JsonNode subject = ref.get("subject");
            JsonNode version = ref.get("version");
            if (name == null || !name.isTextual() || subject == null || !subject.isTextual()
                    || version == null || !version.isIntegralNumber() || !version.canConvertToInt() || version.intValue() < 1) {
                throw malformed(what, "a reference lacks name, subject or version");
            }
            out.add(new SchemaReference(name.textValue(), subject.textValue(), version.intValue()));
        }
        return out;
    }

    private static SchemaUnavailableException malformed(String what, String why) {
        return new SchemaUnavailableException(what + ": the schema registry's answer is not a schema (" + why + ")", false);
    }

    /** An exception's message, short and on one line, for our own messages. */
    static String shortReason(Throwable e) {
        String m = e.getMessage() == null ? e.getClass().getSimpleName() : e.getMessage();
        m = m.replaceAll("\\s+", " ");
        return m.length() > 160 ? m.substring(0, 160) + "..." : m;
    }
}
