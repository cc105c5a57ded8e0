package io.sluice.sizing.testing;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import com.fasterxml.jackson.databind.JsonNode;

import io.sluice.testkit.fixtures.PythonClients;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Kubernetes YAML checked against the Kubernetes API's JSON schemas by {@code kubernetes-validate} (PyPI, pinned with
 * the other Python test clients), which carries the schemas in its package: no network, no cluster. Strict: fields the
 * API does not define are errors. {@code sizing/src/test/python/validate_kubernetes.py} does the checking.
 */
public final class KubernetesSchemas {

    /** The Kubernetes release validated against: the newest the pinned package ships. */
    public static final String VERSION = "1.37.0";
    /** From the checkout's root: the app's ShippedManifestsTest validates through this class too. */
    private static final Path SCRIPT = Path.of("sizing", "src", "test", "python", "validate_kubernetes.py");

    private KubernetesSchemas() {
    }

    /** One YAML document of a file, as the validator judged it. */
    public record Document(String file, String kind, String name, boolean schema, List<String> errors) {
    }

    public static List<Document> validate(List<Path> files) {
        String[] args = files.stream().map(f -> f.toAbsolutePath().toString()).toArray(String[]::new);
        JsonNode result = PythonClients.runFromCheckout(SCRIPT, Duration.ofMinutes(2), Map.of("KUBERNETES_VERSION", VERSION), args).ok();
        List<Document> documents = new ArrayList<>();
        for (JsonNode d : result.get("documents")) {
            List<String> errors = new ArrayList<>();
            d.get("errors").forEach(e -> errors.add(e.asText()));
            documents.add(new Document(d.get("file").asText(), d.get("kind").asText(), d.get("name").asText(), d.get("schema").asBoolean(), errors));
        }
        return documents;
    }

    /** Every document of every file validates against the Kubernetes schemas. */
    public static List<Document> assertValid(Path... files) {
        List<Document> documents = validate(List.of(files));
        assertThat(documents).as("YAML documents in %s", List.of(files)).isNotEmpty();
        assertThat(documents).allSatisfy(d -> assertThat(d.errors()).as("%s %s in %s", d.kind(), d.name(), d.file()).isEmpty());
        return documents;
    }
}
