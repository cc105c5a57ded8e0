package io.sluice.format;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.util.Map;
import java.util.concurrent.CompletableFuture;

import org.apache.avro.Schema;
import org.apache.avro.generic.GenericData;
import org.apache.avro.generic.GenericDatumReader;
import org.apache.avro.generic.GenericDatumWriter;
import org.apache.avro.io.BinaryEncoder;
import org.apache.avro.io.EncoderFactory;
import org.apache.avro.io.ResolvingDecoder;

import com.fasterxml.jackson.databind.JsonNode;

import io.sluice.format.registry.RegisteredSchema;
import io.sluice.format.registry.SchemaSource;
import io.sluice.format.registry.SchemaType;
import io.sluice.format.registry.SchemaUnavailableException;

/**
 * {@code avro}: Avro binary records, either in the Confluent wire format with the writer schema from a registry
 * ({@link #registry}), or bare with one local schema ({@link #local}). Decoding reads with the writer schema itself (no
 * reader-schema projection) through {@link AvroBinaryDecoder}, which checks every declared length against the bytes
 * left, and a reader that bounds nesting; bytes left over after the record are an error (they mean a wrong schema).
 */
public final class AvroCodec implements SchemaCodec {

    private final SchemaSource source;
    private final ParsedSchemas<Schema> parsed;
    private final Schema localSchema;
    private final RecordPart part;
    private final AvroJson json;
    private final int maxDepth;

    private AvroCodec(SchemaSource source, Schema localSchema, RecordPart part, FormatLimits limits) {
        this.source = source;
        this.localSchema = localSchema;
        this.part = part;
        this.maxDepth = limits.maxDepth();
        this.json = new AvroJson(limits.maxDepth());
        this.parsed = source == null ? null
                : new ParsedSchemas<>(source, limits.maxParsedSchemas(), s -> parse(source, s, limits));
    }

    /** Confluent wire format; publish serializes against the latest schema of {@code <topic>-key|-value}. */
    public static AvroCodec registry(SchemaSource source, RecordPart part, FormatLimits limits) {
        return new AvroCodec(source, null, part, limits);
    }

    /** Bare Avro binary with this schema (an .avsc file's text), no header either way. */
    public static AvroCodec local(String schemaText, FormatLimits limits) throws SchemaFileException {
        try {
            return new AvroCodec(null, new Schema.Parser().parse(schemaText), RecordPart.VALUE, limits);
        }
        catch (RuntimeException e) {
            throw new SchemaFileException("not an Avro schema: " + e.getMessage(), e);
        }
    }

    private static Schema parse(SchemaSource source, RegisteredSchema schema, FormatLimits limits)
            throws ParsedSchemas.SchemaException, SchemaUnavailableException {
        if (schema.type() != SchemaType.AVRO) {
            throw new ParsedSchemas.SchemaException("a " + schema.type() + " schema, not Avro");
        }
        Map<String, RegisteredSchema> references = References.resolve(source, schema, limits.maxReferences());
        Schema.Parser parser = new Schema.Parser();
        try {
            // Referenced named types first, into the same parser, so the referring schema can name them.
            for (RegisteredSchema referenced : references.values()) {
                parser.parse(referenced.text());
            }
            return parser.parse(schema.text());
        }
        catch (RuntimeException | StackOverflowError e) {
            // SchemaParseException, AvroTypeException (a default that does not fit), IllegalArgumentException... A stack
            // overflow of the recursive parser (Jackson bounds the text's nesting at 1000) is the schema's fault too.
            throw new ParsedSchemas.SchemaException("not an Avro schema: " + e.getMessage(), e);
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
            return read(localSchema, bytes, 0);
        }
        int id = ConfluentWireFormat.schemaId(bytes);
        Schema schema;
        try {
            schema = parsed.byId(id);
        }
        catch (SchemaUnavailableException e) {
            throw new DecodeException(e.notFound() ? "unknown schema id " + id : "schema id " + id + " unavailable: "
                    + e.getMessage());
        }
        catch (ParsedSchemas.SchemaException e) {
            throw new DecodeException(e.getMessage());
        }
        return read(schema, bytes, ConfluentWireFormat.HEADER_BYTES);
    }

    @Override
    public SchemaRecord read(byte[] bytes, boolean decode) throws DecodeException, SchemaPendingException {
        if (parsed == null) {
            throw new IllegalStateException("a local Avro schema: bytes carry no schema id");
        }
        if (bytes == null) {
            throw new DecodeException("no value (null)");
        }
        int id = ConfluentWireFormat.schemaId(bytes);
        Schema schema = parsed.readable(id, bytes);
        if (decode) {
            datum(schema, bytes, ConfluentWireFormat.HEADER_BYTES);
        }
        return new SchemaRecord(id, SchemaType.AVRO, schema.getFullName());
    }

    @Override
    public byte[] rewrite(String topic, byte[] bytes, ValueChange change)
            throws DecodeException, EncodeException, SchemaPendingException {
        if (bytes == null) {
            throw new DecodeException("no value (null)");
        }
        if (localSchema != null) {
            return write(localSchema, checked(change.apply(read(localSchema, bytes, 0))), null);
        }
        int id = ConfluentWireFormat.schemaId(bytes);
        Schema schema = parsed.readable(id, bytes);
        return write(schema, checked(change.apply(read(schema, bytes, ConfluentWireFormat.HEADER_BYTES))), id);
    }

    private JsonNode checked(JsonNode value) throws EncodeException {
        JsonDepth.check(value, maxDepth);
        return value;
    }

    private JsonNode read(Schema schema, byte[] bytes, int offset) throws DecodeException {
        return json.toJson(datum(schema, bytes, offset), schema);
    }

    /** The record read with the writer schema, every byte of it: bytes left over mean another schema. */
    private Object datum(Schema schema, byte[] bytes, int offset) throws DecodeException {
        AvroBinaryDecoder in = new AvroBinaryDecoder(bytes, offset, bytes.length - offset);
        Object datum;
        try {
            datum = new DepthBoundedReader(schema, maxDepth).read(null, in);
        }
        catch (IOException | RuntimeException e) {
            // Avro reports a union or enum index out of range as ArrayIndexOutOfBounds or AvroRuntimeException; any
            // other runtime failure of the reader is the bytes' fault too, and decoding only ever throws DecodeException.
            throw new DecodeException("bytes do not match the Avro schema: " + shortReason(e));
        }
        if (in.remaining() != 0) {
            throw new DecodeException("bytes do not match the Avro schema: " + in.remaining() + " bytes left over");
        }
        return datum;
    }

    private static String shortReason(Exception e) {
        String message = e.getMessage();
        if (message == null || message.isBlank()) {
            return e.getClass().getSimpleName();
        }
        return message.length() > 160 ? message.substring(0, 160) : message;
    }

    @Override
    public byte[] encode(String topic, JsonNode value) throws EncodeException {
        JsonDepth.check(value, maxDepth);
        if (localSchema != null) {
            return write(localSchema, value, null);
        }
        ParsedSchemas.Latest<Schema> latest = parsed.latest(part.subject(topic));
        return write(latest.parsed(), value, latest.registered().id());
    }

    /**
     * The schema a publish into {@code topic} is written with: the local schema, or the latest of the topic's subject
     * (what the AsyncAPI document describes). May ask the registry.
     */
    public Schema publishSchema(String topic) throws SchemaLookupException {
        if (localSchema != null) {
            return localSchema;
        }
        try {
            return parsed.latest(part.subject(topic)).parsed();
        }
        catch (EncodeException e) {
            throw new SchemaLookupException(e.getMessage());
        }
    }

    @Override
    public JsonNode sample(String topic) throws SchemaLookupException {
        Schema schema = publishSchema(topic);
        try {
            return json.toJson(AvroSamples.sample(schema), schema);
        }
        catch (DecodeException e) {
            throw new SchemaLookupException("no sample of " + schema.getFullName() + ": " + e.getMessage());
        }
    }

    private byte[] write(Schema schema, JsonNode value, Integer schemaId) throws EncodeException {
        Object datum = json.fromJson(value, schema);
        ByteArrayOutputStream out = schemaId == null ? new ByteArrayOutputStream()
                : ConfluentWireFormat.header(schemaId, 64);
        BinaryEncoder encoder = EncoderFactory.get().directBinaryEncoder(out, null);
        try {
            new GenericDatumWriter<>(schema, GenericData.get()).write(datum, encoder);
            encoder.flush();
        }
        catch (IOException | RuntimeException e) {
            // fromJson checked every field already; this is a last line (e.g. a map key Avro refuses).
            throw new EncodeException("/: does not fit the Avro schema: " + shortReason(e), e);
        }
        return out.toByteArray();
    }

    /**
     * Avro's reader recurses once per nested record, array or map, and a recursive schema (a linked list, a tree)
     * lets a record nest as deep as it has bytes: counted here so that hostile bytes meet a {@link DecodeException},
     * not a StackOverflowError. One per record decoded (it is cheap: the resolver is cached per thread by Avro).
     */
    private static final class DepthBoundedReader extends GenericDatumReader<Object> {

        /**
         * Avro 1.12's "fast reader" (on by default) compiles a schema into lambdas that never call {@link #read}, so
         * the depth could not be counted: the classic reader is used instead.
         */
        private static final GenericData SLOW_BUT_BOUNDED = new GenericData();

        static {
            SLOW_BUT_BOUNDED.setFastReaderEnabled(false);
        }

        private final int maxDepth;
        private int depth;

        DepthBoundedReader(Schema schema, int maxDepth) {
            super(schema, schema, SLOW_BUT_BOUNDED);
            this.maxDepth = maxDepth;
        }

        @Override
        protected Object read(Object old, Schema expected, ResolvingDecoder in) throws IOException {
            Schema.Type type = expected.getType();
            boolean nests = type == Schema.Type.RECORD || type == Schema.Type.ARRAY || type == Schema.Type.MAP;
            if (nests && ++depth > maxDepth) {
                throw new AvroBinaryDecoder.AvroBoundsException("the value nests deeper than " + maxDepth + " levels");
            }
            try {
                return super.read(old, expected, in);
            }
            finally {
                if (nests) {
                    depth--;
                }
            }
        }
    }
}
