package io.sluice.sizing.report;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import io.sluice.sizing.cli.SizeCommand;
import io.sluice.sizing.deploy.DeploymentYaml;
import io.sluice.sizing.testing.KubernetesSchemas;
import io.sluice.sizing.testing.SyntheticRuns;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@code sluice size} writes a complete Deployment that the Kubernetes API accepts, whose memory limit holds the JVM
 * its options configure, and whose options keep the collector and processor count the runs were measured with.
 */
class ResourcesYamlTest {

    /** The committed runs docs/sizing.md reports (-Xmx512m -XX:+UseParallelGC, 2 cores). */
    static final Path COMMITTED_RUNS = Path.of("..", "docs", "sizing-runs", "2026-11-22");
    static final ObjectMapper YAML = new ObjectMapper(new YAMLFactory());

    @TempDir
    Path out;

    @Test
    void theDeploymentsWrittenForTheCommittedRunsAreValidAndHoldTheirJvm() throws Exception {
        String[][] inputs = {
                { "--produce-mb-s", "50", "--consumer-groups", "1" },        // docs/kubernetes.md's traffic: 300m, 2 replicas
                { "--produce-mb-s", "2", "--consumer-groups", "0" },         // the least: the 100m floor, still 2 processors
                { "--produce-mb-s", "400", "--consumer-groups", "2", "--pod-max-millicores", "300" }, // spread over several pods
                { "--produce-mb-s", "5000", "--consumer-groups", "1", "--pod-max-millicores", "4000" }, // more CPUs than measured on
        };
        List<Path> files = new ArrayList<>();
        for (int i = 0; i < inputs.length; i++) {
            files.add(size(COMMITTED_RUNS, "case" + i, inputs[i]).resolve("resources-passthrough.yaml"));
        }

        KubernetesSchemas.assertValid(files.toArray(Path[]::new));
        for (Path file : files) {
            JsonNode deployment = YAML.readTree(file.toFile());
            Map<String, String> options = jvmOptions(deployment);
            assertThat(options).as(file.toString()).containsEntry("-Xmx", "512m").containsKey("-XX:+UseParallelGC");
            int millicores = millicores(container(deployment).at("/resources/limits/cpu").asText());
            assertThat(Integer.parseInt(options.get("-XX:ActiveProcessorCount="))).isGreaterThanOrEqualTo(Math.max(2, (millicores + 999) / 1000));
            assertConsistent(deployment);
        }
        JsonNode documented = YAML.readTree(files.get(0).toFile());
        assertThat(documented.at("/spec/replicas").asInt()).isEqualTo(2);
        assertThat(container(documented).at("/resources/limits/cpu").asText()).isEqualTo("300m");
        assertThat(YAML.readTree(files.get(2).toFile()).at("/spec/replicas").asInt()).isGreaterThan(2);
        // A CPU limit above the 2 cores measured on: the JVM may use what the limit rounds up to.
        assertThat(Integer.parseInt(jvmOptions(YAML.readTree(files.get(3).toFile())).get("-XX:ActiveProcessorCount="))).isGreaterThan(2);
    }

    @Test
    void runsThatNamedNoCollectorGetTheJvmsOwnChoiceOnTheirMachineSaidOutLoud() throws Exception {
        Path runs = out.resolve("runs");
        for (double produceMBps : new double[] { 10, 30, 60, 120 }) {
            SyntheticRuns.write(runs, "passthrough", "r" + (int) produceMBps, 1000, produceMBps * 1000, 1.0, 50 + 4 * produceMBps, 300L << 20);
        }
        Path file = size(runs, "synthetic", "--produce-mb-s", "100").resolve("resources-passthrough.yaml");

        KubernetesSchemas.assertValid(file);
        JsonNode deployment = YAML.readTree(file.toFile());
        assertThat(jvmOptions(deployment)).containsEntry("-Xmx", "512m").containsKey("-XX:+UseG1GC");
        assertThat(Files.readString(out.resolve("synthetic/summary.txt"))).contains("no run named its collector: the pod uses -XX:+UseG1GC");
        assertConsistent(deployment);
    }

    /**
     * What the API's schemas cannot see: requests equal limits, the selector picks the template's pods, the probes
     * and the scrape annotation use the management port, and the memory limit covers every pool the options cap.
     */
    static void assertConsistent(JsonNode deployment) {
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

    private Path size(Path runs, String name, String... traffic) throws Exception {
        Path dir = out.resolve(name);
        List<String> args = new ArrayList<>(List.of("--runs", runs.toString(), "--out", dir.toString()));
        args.addAll(Arrays.asList(traffic));
        assertThat(new SizeCommand().run(args)).isZero();
        return dir;
    }

    static JsonNode container(JsonNode deployment) {
        return deployment.at("/spec/template/spec/containers/0");
    }

    /** SLUICE_JAVA_OPTS as option to value: {@code -Xmx -> 512m}, {@code -XX:+UseParallelGC -> ""}. */
    static Map<String, String> jvmOptions(JsonNode deployment) {
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

    private static int millicores(String quantity) {
        assertThat(quantity).matches("\\d+m");
        return Integer.parseInt(quantity.substring(0, quantity.length() - 1));
    }

    static JsonNode read(Path file) throws IOException {
        return YAML.readTree(file.toFile());
    }
}
