package io.sluice.format;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.regex.Pattern;

import io.sluice.format.registry.SchemaSource;

/**
 * The configured formats, built once at startup: for a topic, the first rule whose pattern matches it, with its key and
 * value codecs (either may be null: the bridge's default handling). Local schema files are read and parsed here, so a
 * bad file stops startup with its path named instead of failing every record.
 */
public final class Formats {

    /** A topic's formats: codecs (null for the bridge's default) and the policy for records that do not decode. */
    public record TopicFormat(Codec key, Codec value, DecodeFailurePolicy onDecodeFailure) {
    }

    private record Compiled(Pattern pattern, TopicFormat format) {
    }

    private final List<Compiled> rules;
    // The read topics' formats, for pending(): one lookup per topic, not a pattern match per record.
    private final Map<String, Optional<TopicFormat>> byTopic = new ConcurrentHashMap<>();

    private Formats(List<Compiled> rules) {
        this.rules = rules;
    }

    /** No formats: every topic as today. */
    public static Formats none() {
        return new Formats(List.of());
    }

    /** One rule: the topics matching {@code topics} (a regular expression) have {@code format}. For embedding and tests. */
    public static Formats of(Pattern topics, TopicFormat format) {
        return new Formats(List.of(new Compiled(topics, format)));
    }

    /** Builds the rules' codecs; {@code registry} may be null when no rule uses one (validation guarantees it). */
    public static Formats build(List<FormatRule> rules, SchemaSource registry, FormatLimits limits)
            throws SchemaFileException {
        List<Compiled> compiled = new ArrayList<>();
        for (int i = 0; i < rules.size(); i++) {
            FormatRule rule = rules.get(i);
            String prefix = "formats[" + i + "]";
            Codec key = rule.key() == null ? null : codec(rule.key(), RecordPart.KEY, registry, limits, prefix + ".key");
            Codec value = rule.value() == null ? null
                    : codec(rule.value(), RecordPart.VALUE, registry, limits, prefix + ".value");
            compiled.add(new Compiled(rule.pattern(), new TopicFormat(key, value, rule.onDecodeFailure())));
        }
        return new Formats(List.copyOf(compiled));
    }

    /** The formats of a topic, or null when no rule matches (the bridge's default handling). */
    public TopicFormat forTopic(String topic) {
        for (Compiled rule : rules) {
            if (rule.pattern.matcher(topic).matches()) {
                return rule.format;
            }
        }
        return null;
    }

    /**
     * Null when a record of {@code topic} with this key and value decodes without waiting for the schema registry;
     * otherwise a future that completes when it is worth asking again ({@link Codec#pending}: its schema id is being
     * looked up off the caller's thread, or the rate of new-id lookups is used up). Never blocks. For the Kafka reader,
     * which hands on only records that do not wait, and for recoveries.
     */
    public CompletableFuture<Void> pending(String topic, byte[] key, byte[] value) {
        TopicFormat format = byTopic.computeIfAbsent(topic, t -> Optional.ofNullable(forTopic(t))).orElse(null);
        if (format == null) {
            return null;
        }
        CompletableFuture<Void> waiting = format.key() == null || key == null ? null : format.key().pending(key);
        if (waiting != null) {
            return waiting;
        }
        return format.value() == null || value == null ? null : format.value().pending(value);
    }

    static Codec codec(CodecConfig config, RecordPart part, SchemaSource registry, FormatLimits limits, String where)
            throws SchemaFileException {
        try {
            return switch (config.type()) {
                case "json" -> new JsonCodec(limits);
                case "string" -> new StringCodec();
                case "bytes" -> new BytesCodec();
                case "avro" -> config.registry() ? AvroCodec.registry(registry, part, limits)
                        : AvroCodec.local(text(config.schemaFile()), limits);
                case "json-schema" -> config.registry() ? JsonSchemaCodec.registry(registry, part, limits)
                        : JsonSchemaCodec.local(text(config.schemaFile()), limits);
                case "protobuf" -> protobuf(config, part, registry, limits);
                default -> throw new SchemaFileException("unknown format type " + config.type());
            };
        }
        catch (SchemaFileException e) {
            throw new SchemaFileException(where + ": " + e.getMessage(), e);
        }
    }

    private static Codec protobuf(CodecConfig config, RecordPart part, SchemaSource registry, FormatLimits limits)
            throws SchemaFileException {
        if (config.registry()) {
            return ProtobufCodec.registry(registry, part, config.message(), config.preservingProtoFieldNames(), limits);
        }
        if (config.schemaFile().endsWith(".proto")) {
            // Imports of a local .proto resolve to files beside it (google/protobuf/* are built in).
            Path file = Path.of(config.schemaFile());
            return ProtobufCodec.localProto(text(config.schemaFile()), new SiblingImports(file.getParent()),
                    config.message(), config.preservingProtoFieldNames(), limits);
        }
        try {
            return ProtobufCodec.localDescriptorSet(Files.readAllBytes(Path.of(config.schemaFile())), config.message(),
                    config.preservingProtoFieldNames(), limits);
        }
        catch (IOException e) {
            throw new SchemaFileException("cannot read " + config.schemaFile() + ": " + e.getMessage(), e);
        }
    }

    private static String text(String file) throws SchemaFileException {
        try {
            return Files.readString(Path.of(file), StandardCharsets.UTF_8);
        }
        catch (IOException e) {
            throw new SchemaFileException("cannot read " + file + ": " + e.getMessage(), e);
        }
    }

    /** The .proto files under a directory, by import path, read when the linker asks for them. */
    private static final class SiblingImports extends java.util.AbstractMap<String, String> {
        private final Path root;

        SiblingImports(Path root) {
            this.root = root == null ? Path.of(".") : root;
        }

        @Override
        public String get(Object importPath) {
            Path path = root.resolve(importPath.toString()).normalize();
            if (!path.startsWith(root.normalize()) || !Files.isRegularFile(path)) {
                return null;
            }
            try {
                return Files.readString(path, StandardCharsets.UTF_8);
            }
            catch (IOException e) {
                return null;
            }
        }

        @Override
        public java.util.Set<Map.Entry<String, String>> entrySet() {
            return java.util.Set.of();
        }
    }
}
