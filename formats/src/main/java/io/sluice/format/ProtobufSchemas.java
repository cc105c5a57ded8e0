package io.sluice.format;

import java.util.HashMap;
import java.util.List;
import java.util.Map;

import com.google.protobuf.AnyProto;
import com.google.protobuf.DescriptorProtos;
import com.google.protobuf.DescriptorProtos.FileDescriptorProto;
import com.google.protobuf.DescriptorProtos.FileDescriptorSet;
import com.google.protobuf.Descriptors;
import com.google.protobuf.Descriptors.Descriptor;
import com.google.protobuf.Descriptors.FileDescriptor;
import com.google.protobuf.DurationProto;
import com.google.protobuf.EmptyProto;
import com.google.protobuf.FieldMaskProto;
import com.google.protobuf.InvalidProtocolBufferException;
import com.google.protobuf.StructProto;
import com.google.protobuf.TimestampProto;
import com.google.protobuf.WrappersProto;
import com.squareup.wire.schema.CoreLoader;
import com.squareup.wire.schema.ErrorCollector;
import com.squareup.wire.schema.Linker;
import com.squareup.wire.schema.Loader;
import com.squareup.wire.schema.Location;
import com.squareup.wire.schema.ProtoFile;
import com.squareup.wire.schema.Schema;
import com.squareup.wire.schema.internal.SchemaEncoder;
import com.squareup.wire.schema.internal.parser.ProtoParser;

/**
 * Protobuf descriptors from what a registry or a config holds. protobuf-java can build descriptors only from
 * FileDescriptorProtos (compiled form), while registries hold .proto text: Wire's schema library (the parser Confluent's
 * and Apicurio's serializers use too) parses and links the text, and its SchemaEncoder writes each file as the
 * FileDescriptorProto protobuf-java builds from. The well-known types (google/protobuf/*.proto) are always protobuf-java's
 * own descriptors, so JsonFormat recognises them and prints their JSON forms.
 */
final class ProtobufSchemas {

    /** The name the registered (main) schema gets; its imports keep the names its import statements use. */
    static final String MAIN = "registered-schema.proto";

    private static final Map<String, FileDescriptor> WELL_KNOWN = Map.of(
            "google/protobuf/any.proto", AnyProto.getDescriptor(),
            "google/protobuf/duration.proto", DurationProto.getDescriptor(),
            "google/protobuf/empty.proto", EmptyProto.getDescriptor(),
            "google/protobuf/field_mask.proto", FieldMaskProto.getDescriptor(),
            "google/protobuf/struct.proto", StructProto.getDescriptor(),
            "google/protobuf/timestamp.proto", TimestampProto.getDescriptor(),
            "google/protobuf/wrappers.proto", WrappersProto.getDescriptor(),
            "google/protobuf/descriptor.proto", DescriptorProtos.getDescriptor());

    private ProtobufSchemas() {
    }

    /**
     * The main file of .proto text whose imports are in {@code imports} (import path -> text). A registry may also hold
     * a schema as a base64-encoded FileDescriptorProto: Python confluent-kafka's ProtobufSerializer registers them so,
     * and Apicurio returns them as given; then the main file and its imports are read as such.
     */
    static FileDescriptor fromText(String text, Map<String, String> imports) throws ParsedSchemas.SchemaException {
        FileDescriptorProto encoded = encodedDescriptor(text);
        if (encoded != null) {
            return fromEncoded(encoded, imports);
        }
        TextLoader loader = new TextLoader(text, imports);
        Schema schema;
        try {
            ErrorCollector errors = new ErrorCollector();
            schema = new Linker(loader, errors, false, true).link(List.of(loader.load(MAIN)));
            errors.throwIfNonEmpty();
        }
        catch (RuntimeException | StackOverflowError e) {
            // Wire reports syntax and link errors as IllegalStateException/SchemaException with file:line:column. The
            // text's nesting is checked before Wire parses it; a stack overflow of its recursive parser or linker
            // anyway (a deeper structure than that check counts) is the schema's fault too: the stack is unwound here.
            throw new ParsedSchemas.SchemaException("not a usable .proto schema: " + clip(e.getMessage()), e);
        }
        SchemaEncoder encoder = new SchemaEncoder(schema);
        Map<String, FileDescriptorProto> protos = new HashMap<>();
        for (String path : loader.loaded) {
            ProtoFile file = schema.protoFile(path);
            if (file != null && !WELL_KNOWN.containsKey(path)) {
                try {
                    protos.put(path, FileDescriptorProto.parseFrom(encoder.encode(file).toByteArray()).toBuilder()
                            .setName(path).build());
                }
                catch (InvalidProtocolBufferException e) {
                    throw new ParsedSchemas.SchemaException("cannot describe " + path, e);
                }
            }
        }
        try {
            return build(MAIN, protos, new HashMap<>(), 0);
        }
        catch (Descriptors.DescriptorValidationException e) {
            throw new ParsedSchemas.SchemaException("not a usable .proto schema: " + clip(e.getMessage()), e);
        }
    }

    private static final java.util.regex.Pattern BASE64 = java.util.regex.Pattern.compile("[A-Za-z0-9+/]+={0,2}");

    /** The descriptor a schema text holds as base64, or null when the text is not base64 of a descriptor (.proto text). */
    private static FileDescriptorProto encodedDescriptor(String text) {
        String trimmed = text.strip();
        if (trimmed.isEmpty() || !BASE64.matcher(trimmed).matches()) {
            return null; // .proto text always has spaces, braces or semicolons
        }
        try {
            return FileDescriptorProto.parseFrom(java.util.Base64.getDecoder().decode(trimmed));
        }
        catch (IllegalArgumentException | InvalidProtocolBufferException e) {
            return null;
        }
    }

    private static FileDescriptor fromEncoded(FileDescriptorProto main, Map<String, String> imports) throws ParsedSchemas.SchemaException {
        Map<String, FileDescriptorProto> protos = new HashMap<>();
        for (Map.Entry<String, String> e : imports.entrySet()) {
            FileDescriptorProto imported = encodedDescriptor(e.getValue());
            if (imported == null) {
                // Mixed forms would need the .proto linker for some files and descriptors for others: not supported.
                throw new ParsedSchemas.SchemaException("import " + e.getKey() + " is .proto text while the schema is a base64 descriptor");
            }
            protos.put(e.getKey(), imported.toBuilder().setName(e.getKey()).build());
        }
        protos.put(MAIN, main.toBuilder().setName(MAIN).build());
        try {
            return build(MAIN, protos, new HashMap<>(), 0);
        }
        catch (Descriptors.DescriptorValidationException e) {
            throw new ParsedSchemas.SchemaException("not a usable protobuf descriptor: " + clip(e.getMessage()), e);
        }
    }

    /** Every message type of a descriptor set ({@code protoc --descriptor_set_out}), by full name. */
    static Map<String, Descriptor> fromDescriptorSet(byte[] bytes) throws SchemaFileException {
        FileDescriptorSet set;
        try {
            set = FileDescriptorSet.parseFrom(bytes);
        }
        catch (InvalidProtocolBufferException e) {
            throw new SchemaFileException("not a protobuf descriptor set (protoc --descriptor_set_out)", e);
        }
        Map<String, FileDescriptorProto> protos = new HashMap<>();
        for (FileDescriptorProto file : set.getFileList()) {
            protos.put(file.getName(), file);
        }
        Map<String, FileDescriptor> built = new HashMap<>();
        Map<String, Descriptor> messages = new HashMap<>();
        try {
            for (String name : protos.keySet()) {
                collect(build(name, protos, built, 0).getMessageTypes(), messages);
            }
        }
        catch (ParsedSchemas.SchemaException | Descriptors.DescriptorValidationException e) {
            throw new SchemaFileException("unusable descriptor set: " + e.getMessage(), e);
        }
        return messages;
    }

    private static void collect(List<Descriptor> types, Map<String, Descriptor> into) {
        for (Descriptor type : types) {
            into.put(type.getFullName(), type);
            collect(type.getNestedTypes(), into);
        }
    }

    private static FileDescriptor build(String path, Map<String, FileDescriptorProto> protos,
                                        Map<String, FileDescriptor> built, int depth)
            throws ParsedSchemas.SchemaException, Descriptors.DescriptorValidationException {
        FileDescriptor known = WELL_KNOWN.get(path);
        if (known != null) {
            return known;
        }
        FileDescriptor done = built.get(path);
        if (done != null) {
            return done;
        }
        FileDescriptorProto proto = protos.get(path);
        if (proto == null) {
            throw new ParsedSchemas.SchemaException("import " + path + " is missing");
        }
        if (depth > protos.size()) {
            throw new ParsedSchemas.SchemaException("import cycle through " + path);
        }
        FileDescriptor[] deps = new FileDescriptor[proto.getDependencyCount()];
        for (int i = 0; i < deps.length; i++) {
            deps[i] = build(proto.getDependency(i), protos, built, depth + 1);
        }
        FileDescriptor file = FileDescriptor.buildFrom(proto, deps);
        built.put(path, file);
        return file;
    }

    /** The message type at a Confluent message-index path: top-level index, then nested indexes. */
    static Descriptor messageAt(FileDescriptor file, int[] path) throws DecodeException {
        List<Descriptor> types = file.getMessageTypes();
        Descriptor type = null;
        for (int index : path) {
            if (index >= types.size()) {
                throw new DecodeException("message index " + index + " out of range (" + types.size() + " types)");
            }
            type = types.get(index);
            types = type.getNestedTypes();
        }
        if (type == null) {
            throw new DecodeException("empty message index path");
        }
        return type;
    }

    /** The Confluent message-index path of a message type in its file. */
    static int[] pathOf(Descriptor type) {
        int depth = 0;
        for (Descriptor d = type; d != null; d = d.getContainingType()) {
            depth++;
        }
        int[] path = new int[depth];
        for (Descriptor d = type; d != null; d = d.getContainingType()) {
            path[--depth] = d.getIndex();
        }
        return path;
    }

    private static String clip(String message) {
        if (message == null) {
            return "unreadable";
        }
        return message.length() > 300 ? message.substring(0, 300) + "..." : message;
    }

    /**
     * Serves the main file and its imports by import path (looked up when the linker asks, so a local .proto's imports
     * are read lazily), and Wire's bundled copies of google/protobuf/*.proto; remembers which it served from text.
     */
    private static final class TextLoader implements Loader {
        private final String main;
        private final Map<String, String> imports;
        final java.util.Set<String> loaded = new java.util.LinkedHashSet<>();

        TextLoader(String main, Map<String, String> imports) {
            this.main = main;
            this.imports = imports;
        }

        @Override
        public ProtoFile load(String path) {
            String text = MAIN.equals(path) ? main : WELL_KNOWN.containsKey(path) ? null : imports.get(path);
            if (text == null) {
                return CoreLoader.INSTANCE.load(path);
            }
            loaded.add(path);
            ProtobufNesting.checkText(path, text);
            return ProtoFile.Companion.get(ProtoParser.Companion.parse(Location.get(path), text));
        }

        @Override
        public Loader withErrors(ErrorCollector errors) {
            return this;
        }
    }
}
