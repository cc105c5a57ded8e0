package io.sluice.format;

import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;

import com.fasterxml.jackson.databind.JsonNode;
import com.networknt.schema.Error;
import com.networknt.schema.InputFormat;
import com.networknt.schema.Schema;
import com.networknt.schema.SchemaRegistry;
import com.networknt.schema.SpecificationVersion;

import io.sluice.format.registry.RegisteredSchema;
import io.sluice.format.registry.SchemaSource;
import io.sluice.format.registry.SchemaType;
import io.sluice.format.registry.SchemaUnavailableException;

/**
 * {@code json-schema}: JSON records, delivered as they are; publish validates against the schema (networknt
 * json-schema-validator; draft 7 unless the schema's {@code $schema} says otherwise, as Confluent's serializer). With a
 * registry the bytes carry the Confluent header, and decoding checks that the id resolves (so a record with a bogus id
 * meets the decode-failure policy) but does not validate: its producer's serializer did, and validating every record
 * would cost the bridge's one reader thread. {@link #read} (the proxy's RecordValidation) does validate, when asked. {@code $ref}s resolve only to the schema's registry references (by the name
 * the reference gives): never to the network or the file system.
 */
public final class JsonSchemaCodec implements SchemaCodec {

    private final SchemaSource source;
    private final ParsedSchemas<Schema> parsed;
    private final Schema localSchema;
    private final String localText;
    private final RecordPart part;
    private final Json json;
    private final int maxDepth;

    private JsonSchemaCodec(SchemaSource source, Schema localSchema, String localText, RecordPart part,
                            FormatLimits limits) {
        this.source = source;
        this.localSchema = localSchema;
        this.localText = localText;
        this.part = part;
        this.maxDepth = limits.maxDepth();
        this.json = new Json(limits.maxDepth());
        this.parsed = source == null ? null
                : new ParsedSchemas<>(source, limits.maxParsedSchemas(), s -> parse(source, s, limits));
    }

    public static JsonSchemaCodec registry(SchemaSource source, RecordPart part, FormatLimits limits) {
        return new JsonSchemaCodec(source, null, null, part, limits);
    }

    /** Bare JSON validated on publish against this schema (a .json file's text). */
    public static JsonSchemaCodec local(String schemaText, FormatLimits limits) throws SchemaFileException {
        try {
            return new JsonSchemaCodec(null, compile(schemaText, Map.of()), schemaText, RecordPart.VALUE, limits);
        }
        catch (ParsedSchemas.SchemaException e) {
            throw new SchemaFileException(e.getMessage(), e);
        }
    }

    private static Schema parse(SchemaSource source, RegisteredSchema schema, FormatLimits limits)
            throws ParsedSchemas.SchemaException, SchemaUnavailableException {
        if (schema.type() != SchemaType.JSON) {
            throw new ParsedSchemas.SchemaException("a " + schema.type() + " schema, not JSON Schema");
        }
        Map<String, String> references = new HashMap<>();
        for (Map.Entry<String, RegisteredSchema> reference
                : References.resolve(source, schema, limits.maxReferences()).entrySet()) {
            references.put(reference.getKey(), reference.getValue().text());
        }
        return compile(schema.text(), references);
    }

    private static Schema compile(String text, Map<String, String> references) throws ParsedSchemas.SchemaException {
        try {
            SchemaRegistry registry = SchemaRegistry.withDefaultDialect(SpecificationVersion.DRAFT_7,
                    builder -> builder.schemas(references));
            Schema schema = registry.getSchema(text, InputFormat.JSON);
            schema.initializeValidators();
            return schema;
        }
        catch (RuntimeException e) {
            String message = e.getMessage() == null ? e.getClass().getSimpleName() : e.getMessage();
            throw new ParsedSchemas.SchemaException("not a usable JSON Schema: "
                    + (message.length() > 200 ? message.substring(0, 200) : message), e);
        }
    }

    /**
     * The text of the JSON Schema a publish into {@code topic} is validated against: the local file's, or the latest
     * of the topic's subject (what the AsyncAPI document describes). May ask the registry.
     */
    public String publishSchemaText(String topic) throws SchemaLookupException {
        if (localText != null) {
            return localText;
        }
        try {
            return parsed.latest(part.subject(topic)).registered().text();
        }
        catch (EncodeException e) {
            throw new SchemaLookupException(e.getMessage());
        }
    }

    @Override
    public CompletableFuture<Void> pending(byte[] bytes) {
        return parsed == null || bytes == null ? null : parsed.pending(bytes);
    }

    @Override
    public JsonNode decode(String topic, byte[] bytes) throws DecodeException {
        if (bytes == null) {
            throw new DecodeException("no value (null)");
        }
        if (localSchema != null) {
            return json.read(Utf8Text.decode(bytes, 0, bytes.length));
        }
        int id = ConfluentWireFormat.schemaId(bytes);
        try {
            parsed.byId(id);
        }
        catch (SchemaUnavailableException e) {
            throw new DecodeException(e.notFound() ? "unknown schema id " + id : "schema id " + id + " unavailable: "
                    + e.getMessage());
        }
        catch (ParsedSchemas.SchemaException e) {
            throw new DecodeException(e.getMessage());
        }
        int offset = ConfluentWireFormat.HEADER_BYTES;
        return json.read(Utf8Text.decode(bytes, offset, bytes.length - offset));
    }

    @Override
    public SchemaRecord read(byte[] bytes, boolean decode) throws DecodeException, SchemaPendingException {
        if (parsed == null) {
            throw new IllegalStateException("a local JSON Schema: bytes carry no schema id");
        }
        if (bytes == null) {
            throw new DecodeException("no value (null)");
        }
        int id = ConfluentWireFormat.schemaId(bytes);
        Schema schema = parsed.readable(id, bytes);
        if (decode) {
            int offset = ConfluentWireFormat.HEADER_BYTES;
            String violation = violation(schema, json.read(Utf8Text.decode(bytes, offset, bytes.length - offset)));
            if (violation != null) {
                throw new DecodeException("does not conform to JSON Schema id " + id + ": " + violation);
            }
        }
        JsonNode title = schema.getSchemaNode() == null ? null : schema.getSchemaNode().get("title");
        return new SchemaRecord(id, SchemaType.JSON, title != null && title.isTextual() ? title.textValue() : null);
    }

    /**
     * The masked value is validated against the same schema before it is written: a JSON Schema deserializer that
     * validates (confluent-kafka's does) must accept what it reads.
     */
    @Override
    public byte[] rewrite(String topic, byte[] bytes, ValueChange change)
            throws DecodeException, EncodeException, SchemaPendingException {
        if (bytes == null) {
            throw new DecodeException("no value (null)");
        }
        if (localSchema != null) {
            return encode(topic, change.apply(json.read(Utf8Text.decode(bytes, 0, bytes.length))));
        }
        int id = ConfluentWireFormat.schemaId(bytes);
        Schema schema = parsed.readable(id, bytes);
        int offset = ConfluentWireFormat.HEADER_BYTES;
        JsonNode changed = change.apply(json.read(Utf8Text.decode(bytes, offset, bytes.length - offset)));
        JsonDepth.check(changed, maxDepth);
        validate(schema, changed);
        return ConfluentWireFormat.frame(id, json.write(changed));
    }

    @Override
    public byte[] encode(String topic, JsonNode value) throws EncodeException {
        JsonDepth.check(value, maxDepth);
        if (localSchema != null) {
            validate(localSchema, value);
            return json.write(value);
        }
        ParsedSchemas.Latest<Schema> found = parsed.latest(part.subject(topic));
        RegisteredSchema latest = found.registered();
        Schema schema = found.parsed();
        validate(schema, value);
        return ConfluentWireFormat.frame(latest.id(), json.write(value));
    }

    private static void validate(Schema schema, JsonNode value) throws EncodeException {
        String violation = violation(schema, value);
        if (violation != null) {
            throw new EncodeException(violation);
        }
    }

    /** Null when {@code value} conforms; else the first violation, located by a JSON Pointer, and how many more. */
    private static String violation(Schema schema, JsonNode value) {
        List<Error> errors;
        try {
            errors = schema.validate(value);
        }
        catch (RuntimeException e) {
            return "/: cannot be validated: " + e.getClass().getSimpleName();
        }
        if (errors.isEmpty()) {
            return null;
        }
        Error first = errors.get(0);
        String pointer = first.getInstanceLocation().toString();
        // networknt gives the instance location as a JSON Pointer (/lines/0/n), like the other codecs.
        return (pointer.isEmpty() ? "/" : pointer) + ": " + first.getMessage()
                + (errors.size() > 1 ? " (and " + (errors.size() - 1) + " more)" : "");
    }
}
