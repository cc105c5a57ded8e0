package io.sluice.sizing.testing;

import java.util.HashMap;
import java.util.Map;

import com.fasterxml.jackson.databind.JsonNode;

import io.sluice.sizing.deploy.DeploymentYaml;

import static org.assertj.core.api.Assertions.assertThat;

/** Checks on a Deployment {@code sluice size} or {@code sluice size bridge} wrote, beyond its schema. */
public final class DeploymentChecks {

    private DeploymentChecks() {
    }

    /**
     * What the API's schemas cannot see: requests equal limits, the selector picks the template's pods, the probes
     * and the scrape annotation use the management port, and the memory limit covers every pool the options cap.
     */
    public static void assertConsistent(JsonNode deployment) {
        JsonNode container = container(deployment);
        assertThat(container.at("/resources/requests")).isEqualTo(container.at("/resources/limits"));
        deployment.at("/spec/selector/matchLabels").fields().forEachRemaining(label ->
                assertThat(deployment.at("/spec/template/metadata/labels").get(label.getKey())).isEqualTo(label.getValue()));
        assertThat(container.get("image").asText()).isEqualTo(DeploymentYaml.IMAGE).startsWith("sluice:");
        int management = -1;
        for (JsonNode port : container.get("ports")) {
            if (port.get("name").asText().equals("management")) {
                management = port.get("containerPort").asInt();
            }
        }
        assertThat(container.at("/livenessProbe/httpGet/path").asText()).isEqualTo("/healthz");
        assertThat(container.at("/readinessProbe/httpGet/path").asText()).isEqualTo("/readyz");
        assertThat(container.at("/readinessProbe/httpGet/port").asText()).isEqualTo("management");
        assertThat(deployment.at("/spec/template/metadata/annotations/prometheus.io~1port").asText()).isEqualTo(String.valueOf(management));
        assertThat(container.at("/securityContext/readOnlyRootFilesystem").asBoolean()).isTrue();
        assertThat(container.at("/securityContext/allowPrivilegeEscalation").asBoolean()).isFalse();

        Map<String, String> options = jvmOptions(deployment);
        long capped = mib(options.get("-Xmx")) + mib(options.get("-XX:MaxDirectMemorySize=")) + mib(options.get("-XX:MaxMetaspaceSize="))
                + mib(options.get("-XX:ReservedCodeCacheSize="));
        long limit = mebibytes(container.at("/resources/limits/memory").asText());
        assertThat(limit).as("memory limit in MiB against the pools the JVM options cap, %s", options).isGreaterThan(capped);
    }


    public static JsonNode container(JsonNode deployment) {
        return deployment.at("/spec/template/spec/containers/0");
    }

    /** SLUICE_JAVA_OPTS as option to value: {@code -Xmx -> 512m}, {@code -XX:+UseParallelGC -> ""}. */
    public static Map<String, String> jvmOptions(JsonNode deployment) {
        String value = null;
        for (JsonNode env : container(deployment).get("env")) {
            if (env.get("name").asText().equals("SLUICE_JAVA_OPTS")) {
                value = env.get("value").asText();
            }
        }
        assertThat(value).as("SLUICE_JAVA_OPTS").isNotNull();
        Map<String, String> options = new HashMap<>();
        for (String option : value.split(" ")) {
            int equals = option.indexOf('=');
            int split = option.startsWith("-Xmx") ? 4 : equals < 0 ? option.length() : equals + 1;
            options.put(option.substring(0, split), option.substring(split));
        }
        return options;
    }

    private static long mib(String size) {
        assertThat(size).as("a size in MiB").matches("\\d+m");
        return Long.parseLong(size.substring(0, size.length() - 1));
    }

    private static long mebibytes(String quantity) {
        assertThat(quantity).as("a memory quantity").matches("\\d+Mi");
        return Long.parseLong(quantity.substring(0, quantity.length() - 2));
    }

    public static int millicores(String quantity) {
        assertThat(quantity).matches("\\d+m");
        return Integer.parseInt(quantity.substring(0, quantity.length() - 1));
    }
}
