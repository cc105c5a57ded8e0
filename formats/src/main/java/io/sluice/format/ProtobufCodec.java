package io.sluice.format;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.CompletableFuture;

import com.fasterxml.jackson.databind.JsonNode;
import com.google.protobuf.CodedInputStream;
import com.google.protobuf.Descriptors.Descriptor;
import com.google.protobuf.Descriptors.FileDescriptor;
import com.google.protobuf.DynamicMessage;
import com.google.protobuf.InvalidProtocolBufferException;
import com.google.protobuf.util.JsonFormat;

import io.sluice.format.registry.RegisteredSchema;
import io.sluice.format.registry.SchemaSource;
import io.sluice.format.registry.SchemaType;
import io.sluice.format.registry.SchemaUnavailableException;

/**
 * {@code protobuf}: Protobuf messages as proto3 canonical JSON (JsonFormat): either in the Confluent wire format
 * (schema id, then the message-index path naming the message type in the registered file) with the schema from a
 * registry, or bare with one message type from a local descriptor set or .proto file. Parsing bounds message nesting
 * by {@link FormatLimits#maxDepth()} (protobuf-java's recursion limit) and checks every length against the bytes left.
 */
public final class ProtobufCodec implements SchemaCodec {

    /** A registered file, with the type registry JsonFormat needs to print {@code Any}. */
    private record Parsed(FileDescriptor file, JsonFormat.TypeRegistry types) {
    }

    private final SchemaSource source;
    private final ParsedSchemas<Parsed> parsed;
    private final Descriptor localType;
    private final JsonFormat.TypeRegistry localTypes;
    private final String publishMessage;
    private final RecordPart part;
    private final int maxDepth;
    private final JsonFormat.Printer printer;
    private final Json json;
    private final boolean preservingProtoFieldNames;

    private ProtobufCodec(SchemaSource source, Descriptor localType, String publishMessage, RecordPart part,
                          boolean preservingProtoFieldNames, FormatLimits limits) {
        this.source = source;
        this.localType = localType;
        this.localTypes = localType == null ? null : JsonFormat.TypeRegistry.newBuilder().add(localType).build();
        this.publishMessage = publishMessage;
        this.part = part;
        this.maxDepth = limits.maxDepth();
        JsonFormat.Printer p = JsonFormat.printer().omittingInsignificantWhitespace();
        this.printer = preservingProtoFieldNames ? p.preservingProtoFieldNames() : p;
        this.preservingProtoFieldNames = preservingProtoFieldNames;
        // Our own output: message nesting is bounded by the parse, and a Struct level is two message levels.
        this.json = new Json(2 * limits.maxDepth() + 2);
        this.parsed = source == null ? null
                : new ParsedSchemas<>(source, limits.maxParsedSchemas(), s -> parse(source, s, limits));
    }

    /**
     * Confluent wire format. Publish serializes against the latest schema of {@code <topic>-key|-value} as
     * {@code publishMessage} (a full name), or, when that is null, as the file's first message type.
     */
    public static ProtobufCodec registry(SchemaSource source, RecordPart part, String publishMessage,
                                         boolean preservingProtoFieldNames, FormatLimits limits) {
        return new ProtobufCodec(source, null, publishMessage, part, preservingProtoFieldNames, limits);
    }

    /** Bare messages of one type from a descriptor set ({@code protoc --include_imports --descriptor_set_out}). */
    public static ProtobufCodec localDescriptorSet(byte[] descriptorSet, String message,
                                                   boolean preservingProtoFieldNames, FormatLimits limits)
            throws SchemaFileException {
        Descriptor type = ProtobufSchemas.fromDescriptorSet(descriptorSet).get(message);
        if (type == null) {
            throw new SchemaFileException("no message type " + message + " in the descriptor set");
        }
        return new ProtobufCodec(null, type, null, RecordPart.VALUE, preservingProtoFieldNames, limits);
    }

    /** Bare messages of one type from .proto text whose imports are given by import path. */
    public static ProtobufCodec localProto(String protoText, Map<String, String> imports, String message,
                                           boolean preservingProtoFieldNames, FormatLimits limits)
            throws SchemaFileException {
        FileDescriptor file;
        try {
            file = ProtobufSchemas.fromText(protoText, imports);
        }
        catch (ParsedSchemas.SchemaException e) {
            throw new SchemaFileException(e.getMessage(), e);
        }
        Descriptor type = findMessage(file, message);
        if (type == null) {
            throw new SchemaFileException("no message type " + message + " in the .proto file");
        }
        return new ProtobufCodec(null, type, null, RecordPart.VALUE, preservingProtoFieldNames, limits);
    }

    private static Descriptor findMessage(FileDescriptor file, String fullName) {
        String pkg = file.getPackage();
        String local = pkg.isEmpty() ? fullName : fullName.startsWith(pkg + ".") ? fullName.substring(pkg.length() + 1)
                : null;
        if (local == null) {
            return null;
        }
        String[] parts = local.split("\\.");
        Descriptor type = file.findMessageTypeByName(parts[0]);
        for (int i = 1; i < parts.length && type != null; i++) {
            type = type.findNestedTypeByName(parts[i]);
        }
        return type;
    }

    private static Parsed parse(SchemaSource source, RegisteredSchema schema, FormatLimits limits)
            throws ParsedSchemas.SchemaException, SchemaUnavailableException {
        if (schema.type() != SchemaType.PROTOBUF) {
            throw new ParsedSchemas.SchemaException("a " + schema.type() + " schema, not Protobuf");
        }
        Map<String, String> imports = new HashMap<>();
        for (Map.Entry<String, RegisteredSchema> reference
                : References.resolve(source, schema, limits.maxReferences()).entrySet()) {
            imports.put(reference.getKey(), reference.getValue().text());
        }
        FileDescriptor file = ProtobufSchemas.fromText(schema.text(), imports);
        return new Parsed(file, JsonFormat.TypeRegistry.newBuilder().add(file.getMessageTypes()).build());
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
        if (localType != null) {
            return read(localType, localTypes, bytes, 0);
        }
        int id = ConfluentWireFormat.schemaId(bytes);
        ConfluentWireFormat.MessageIndexes indexes = ConfluentWireFormat.readMessageIndexes(bytes);
        Parsed schema;
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
        Descriptor type = ProtobufSchemas.messageAt(schema.file(), indexes.path());
        return read(type, schema.types(), bytes, indexes.messageOffset());
    }

    @Override
    public SchemaRecord read(byte[] bytes, boolean decode) throws DecodeException, SchemaPendingException {
        if (parsed == null) {
            throw new IllegalStateException("a local Protobuf schema: bytes carry no schema id");
        }
        if (bytes == null) {
            throw new DecodeException("no value (null)");
        }
        int id = ConfluentWireFormat.schemaId(bytes);
        ConfluentWireFormat.MessageIndexes indexes = ConfluentWireFormat.readMessageIndexes(bytes);
        Parsed schema = parsed.readable(id, bytes);
        Descriptor type = ProtobufSchemas.messageAt(schema.file(), indexes.path());
        if (decode) {
            message(type, schema.types(), bytes, indexes.messageOffset());
        }
        return new SchemaRecord(id, SchemaType.PROTOBUF, type.getFullName());
    }

    @Override
    public byte[] rewrite(String topic, byte[] bytes, ValueChange change)
            throws DecodeException, EncodeException, SchemaPendingException {
        if (bytes == null) {
            throw new DecodeException("no value (null)");
        }
        if (localType != null) {
            return write(localType, localTypes, checked(change.apply(read(localType, localTypes, bytes, 0))), null);
        }
        int id = ConfluentWireFormat.schemaId(bytes);
        ConfluentWireFormat.MessageIndexes indexes = ConfluentWireFormat.readMessageIndexes(bytes);
        Parsed schema = parsed.readable(id, bytes);
        Descriptor type = ProtobufSchemas.messageAt(schema.file(), indexes.path());
        JsonNode changed = checked(change.apply(read(type, schema.types(), bytes, indexes.messageOffset())));
        // write() puts the type's own message-index path, which is the one these bytes named.
        return write(type, schema.types(), changed, id);
    }

    private JsonNode checked(JsonNode value) throws EncodeException {
        JsonDepth.check(value, maxDepth);
        return value;
    }

    private JsonNode read(Descriptor type, JsonFormat.TypeRegistry types, byte[] bytes, int offset)
            throws DecodeException {
        DynamicMessage message = message(type, types, bytes, offset);
        String text;
        try {
            text = printer.usingTypeRegistry(types).print(message);
        }
        catch (IOException | RuntimeException e) {
            // An Any of an unknown type. The message never has payload.
            throw new DecodeException("bytes do not match Protobuf type " + type.getFullName() + ": "
                    + shortReason(e));
        }
        return json.read(text);
    }

    /** The message parsed within the nesting bound, its Any and Struct values too. */
    private DynamicMessage message(Descriptor type, JsonFormat.TypeRegistry types, byte[] bytes, int offset)
            throws DecodeException {
        CodedInputStream in = CodedInputStream.newInstance(bytes, offset, bytes.length - offset);
        in.setRecursionLimit(maxDepth);
        try {
            DynamicMessage message = DynamicMessage.parseFrom(type, in);
            ProtobufNesting.check(message, types, maxDepth);
            return message;
        }
        catch (IOException | RuntimeException e) {
            // Invalid wire data or nesting over the limit. The message never has payload.
            throw new DecodeException("bytes do not match Protobuf type " + type.getFullName() + ": "
                    + shortReason(e));
        }
    }

    private static String shortReason(Exception e) {
        String message = e.getMessage();
        if (message == null || message.isBlank()) {
            return e.getClass().getSimpleName();
        }
        int nl = message.indexOf('\n');
        message = nl < 0 ? message : message.substring(0, nl);
        return message.length() > 160 ? message.substring(0, 160) : message;
    }

    @Override
    public byte[] encode(String topic, JsonNode value) throws EncodeException {
        JsonDepth.check(value, maxDepth);
        if (localType != null) {
            return write(localType, localTypes, value, null);
        }
        Latest latest = latest(topic);
        return write(latest.type(), latest.types(), value, latest.id());
    }

    private record Latest(int id, Descriptor type, JsonFormat.TypeRegistry types) {
    }

    /** The message type a publish writes, from the latest schema of the topic's subject; a publish's refusal if none. */
    private Latest latest(String topic) throws EncodeException {
        String subject = part.subject(topic);
        ParsedSchemas.Latest<Parsed> found = parsed.latest(subject);
        RegisteredSchema latest = found.registered();
        Parsed schema = found.parsed();
        Descriptor type;
        if (publishMessage == null) {
            if (schema.file().getMessageTypes().isEmpty()) {
                throw new EncodeException("subject " + subject + " has no message type");
            }
            type = schema.file().getMessageTypes().get(0);
        }
        else {
            type = findMessage(schema.file(), publishMessage);
            if (type == null) {
                throw new EncodeException("subject " + subject + " has no message type " + publishMessage);
            }
        }
        return new Latest(latest.id(), type, schema.types());
    }

    /**
     * The message type a publish into {@code topic} is written as: the local type, or the configured (else first)
     * message of the latest schema of the topic's subject (what the AsyncAPI document describes). May ask the registry.
     */
    public Descriptor publishType(String topic) throws SchemaLookupException {
        if (localType != null) {
            return localType;
        }
        try {
            return latest(topic).type();
        }
        catch (EncodeException e) {
            throw new SchemaLookupException(e.getMessage());
        }
    }

    /** Every field at its default, printed with the defaults (JsonFormat leaves them out otherwise): nested messages absent. */
    @Override
    public JsonNode sample(String topic) throws SchemaLookupException {
        Descriptor type = publishType(topic);
        JsonFormat.TypeRegistry types = localType != null ? localTypes : JsonFormat.TypeRegistry.newBuilder().add(type).build();
        try {
            return json.read(printer.includingDefaultValueFields().usingTypeRegistry(types).print(DynamicMessage.getDefaultInstance(type)));
        }
        catch (IOException | DecodeException | RuntimeException e) {
            throw new SchemaLookupException("no sample of " + type.getFullName() + ": " + e.getMessage());
        }
    }

    /** JSON field names as written in the .proto ({@code preservingProtoFieldNames}) rather than lowerCamel. */
    public boolean preservingProtoFieldNames() {
        return preservingProtoFieldNames;
    }

    private byte[] write(Descriptor type, JsonFormat.TypeRegistry types, JsonNode value, Integer schemaId)
            throws EncodeException {
        ProtobufJsonCheck.check(value, type, "");
        DynamicMessage.Builder builder = DynamicMessage.newBuilder(type);
        try {
            JsonFormat.parser().usingTypeRegistry(types)
                    .merge(json.writeString(value), builder);
        }
        catch (InvalidProtocolBufferException | RuntimeException e) {
            throw new EncodeException("/: does not fit Protobuf type " + type.getFullName() + ": " + shortReason(e));
        }
        byte[] body = builder.build().toByteArray();
        if (schemaId == null) {
            return body;
        }
        ByteArrayOutputStream out = ConfluentWireFormat.header(schemaId, body.length + 2);
        ConfluentWireFormat.writeMessageIndexes(out, ProtobufSchemas.pathOf(type));
        out.writeBytes(body);
        return out.toByteArray();
    }
}
