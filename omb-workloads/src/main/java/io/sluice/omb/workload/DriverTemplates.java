package io.sluice.omb.workload;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.Map;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import com.fasterxml.jackson.dataformat.yaml.YAMLGenerator;

import io.sluice.config.ConfigLoader;

/**
 * The OMB Kafka driver file for each target ({@code omb/drivers/TARGET.yaml}), with addresses taken from the
 * environment by the proxy's own {@code ${VAR}} rules. OMB reads driver files literally, so they are rendered before
 * OMB sees them. A target without a driver of its own (a user's proxy configuration) gets passthrough's: clients
 * reach any proxy the same way.
 */
public final class DriverTemplates {

    private static final String DIR = "/omb/drivers/";
    private static final ObjectMapper YAML = new ObjectMapper(new YAMLFactory()
            .disable(YAMLGenerator.Feature.WRITE_DOC_START_MARKER)
            .enable(YAMLGenerator.Feature.MINIMIZE_QUOTES)
            // Properties blocks stay blocks, as a person would write them.
            .enable(YAMLGenerator.Feature.LITERAL_BLOCK_STYLE));

    private DriverTemplates() {
    }

    public static String template(String target) {
        String own = resource(target + ".yaml");
        return own != null ? own : resource("passthrough.yaml");
    }

    /** The driver for a target with {@code ${VAR}} substituted from {@code env}; a missing variable is an error naming it. */
    public static String render(String target, Map<String, String> env) {
        JsonNode tree = ConfigLoader.tree(template(target), env);
        try {
            return YAML.writeValueAsString(tree);
        } catch (JsonProcessingException e) {
            throw new UncheckedIOException(e);
        }
    }

    /**
     * A rendered driver with {@code overrides} over its {@code producerConfig} properties: the driver's own settings
     * stay where the workload does not vary them (acks, say), so only batching differs between batching workloads.
     */
    public static String withProducerConfig(String driverYaml, Map<String, String> overrides) {
        if (overrides.isEmpty()) {
            return driverYaml;
        }
        try {
            ObjectNode tree = (ObjectNode) YAML.readTree(driverYaml);
            Map<String, String> merged = new LinkedHashMap<>();
            JsonNode existing = tree.get("producerConfig");
            if (existing != null) {
                for (String line : existing.asText().split("\n")) {
                    int eq = line.indexOf('=');
                    if (eq > 0 && !line.strip().startsWith("#")) {
                        merged.put(line.substring(0, eq).strip(), line.substring(eq + 1).strip());
                    }
                }
            }
            merged.putAll(overrides);
            StringBuilder text = new StringBuilder();
            merged.forEach((key, value) -> text.append(key).append('=').append(value).append('\n'));
            tree.put("producerConfig", text.toString());
            return YAML.writeValueAsString(tree);
        } catch (JsonProcessingException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static String resource(String name) {
        try (InputStream in = DriverTemplates.class.getResourceAsStream(DIR + name)) {
            return in == null ? null : new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
