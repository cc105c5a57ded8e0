package io.sluice.config;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.function.Function;

import com.fasterxml.jackson.annotation.JsonSetter;
import com.fasterxml.jackson.annotation.Nulls;
import com.fasterxml.jackson.core.JsonLocation;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.StreamReadFeature;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.MapperFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.module.SimpleModule;
import com.fasterxml.jackson.databind.ser.std.ToStringSerializer;
import com.fasterxml.jackson.dataformat.yaml.YAMLMapper;

/**
 * The first stages of reading any Sluice configuration file: YAML, then environment substitution on the parsed tree,
 * then binding to records with unknown fields and type errors reported by path. Each stage reports all of its problems
 * in one {@link ConfigException}; a stage runs only if the one before it succeeded, because its errors would otherwise
 * be noise caused by the earlier ones. Each server adds its own validation on top (the proxy's
 * {@code ProxyConfigLoader}, the bridge's {@code BridgeConfigLoader}), so all of them accept the same syntax.
 */
public final class ConfigLoader {

    private static final ObjectMapper MAPPER = createMapper();

    private ConfigLoader() {
    }

    /**
     * All stages for one server's file: {@link #tree}, {@link #bind} at the root, then {@code validate}, which runs
     * only if binding succeeded and returns every problem it finds, each starting with the field it concerns.
     */
    public static <T> T parse(String yaml, Map<String, String> env, Class<T> type, Function<T, List<String>> validate) {
        T config = bind(tree(yaml, env), type, "");
        List<String> problems = validate.apply(config);
        if (!problems.isEmpty()) {
            throw new ConfigException(problems);
        }
        return config;
    }

    /** The text of a configuration file, or a {@link ConfigException} that says plainly why not. */
    public static String read(Path file) {
        try {
            return Files.readString(file, StandardCharsets.UTF_8);
        }
        catch (NoSuchFileException e) {
            throw new ConfigException(file + ": configuration file does not exist", e);
        }
        catch (IOException e) {
            throw new ConfigException(file + ": cannot read configuration file: " + e, e);
        }
    }

    /**
     * Parses YAML and substitutes {@code ${VAR}} / {@code ${VAR:-default}} from {@code env}: the first two stages of
     * loading, shared by every Sluice component that reads a configuration file (the bridge's config, benchmark driver
     * files rendered from templates), so all of them accept the same syntax.
     */
    public static JsonNode tree(String yaml, Map<String, String> env) {
        JsonNode tree = readTree(yaml);
        List<String> substitutionProblems = EnvSubstitution.apply(tree, env);
        if (!substitutionProblems.isEmpty()) {
            throw new ConfigException(substitutionProblems);
        }
        return tree;
    }

    /**
     * Binds part of a configuration, typically a filter's {@code config}, with the same rules as the proxy's own
     * sections: unknown fields are errors and problems are reported under {@code path}. A null or missing node binds
     * like an empty object, so types whose fields all have defaults need no {@code config} at all.
     *
     * @param path where the node sits in the file, e.g. {@code filterDefinitions[2].config}
     */
    public static <T> T bind(JsonNode node, Class<T> type, String path) {
        JsonNode source = node == null || node.isNull() || node.isMissingNode() ? MAPPER.createObjectNode() : node;
        return StrictBinder.bind(MAPPER, source, type, path == null ? "" : path);
    }

    /**
     * The YAML mapper the loader uses, with its duration format and strictness, for components that read
     * configuration of their own. Shared: do not reconfigure it.
     */
    public static ObjectMapper mapper() {
        return MAPPER;
    }

    private static JsonNode readTree(String yaml) {
        try (JsonParser parser = MAPPER.createParser(yaml)) {
            JsonNode tree = MAPPER.readTree(parser);
            if (tree == null || tree.isMissingNode() || tree.isNull()) {
                throw new ConfigException("(root): the configuration is empty");
            }
            if (!tree.isObject()) {
                throw new ConfigException("(root): expected a mapping of configuration sections");
            }
            if (parser.nextToken() != null) {
                throw new ConfigException("(root): only one YAML document is supported");
            }
            return tree;
        }
        catch (JsonProcessingException e) {
            throw new ConfigException(where(e.getLocation()) + ": " + oneLine(e.getOriginalMessage()), e);
        }
        catch (IOException e) {
            throw new ConfigException("(root): cannot parse YAML: " + e.getMessage(), e);
        }
    }

    private static String where(JsonLocation location) {
        return location == null ? "(yaml)" : "line " + location.getLineNr() + ", column " + location.getColumnNr();
    }

    private static String oneLine(String message) {
        return message == null ? "invalid YAML" : message.strip().replaceAll("\\s*\\R\\s*", " ");
    }

    private static ObjectMapper createMapper() {
        SimpleModule durations = new SimpleModule("sluice-durations");
        durations.addDeserializer(Duration.class, new DurationDeserializer());
        durations.addSerializer(Duration.class, ToStringSerializer.instance);
        return YAMLMapper.builder()
                .addModule(durations)
                .enable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES)
                .enable(StreamReadFeature.STRICT_DUPLICATE_DETECTION)
                // 1.5 silently becoming 1 would hide a mistake in a port or a size.
                .disable(DeserializationFeature.ACCEPT_FLOAT_AS_INT)
                .enable(MapperFeature.ACCEPT_CASE_INSENSITIVE_ENUMS)
                // A stray "-" in a YAML list yields null; fail on it here rather than deep inside a record.
                .defaultSetterInfo(JsonSetter.Value.forContentNulls(Nulls.FAIL))
                .build();
    }
}
