package io.sluice.sizing.report;

import java.io.OutputStream;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import io.sluice.results.read.ResultSetReader;
import io.sluice.results.testing.SyntheticRuns;
import io.sluice.sizing.plan.Sizing;
import io.sluice.sizing.plan.TrafficSpec;
import io.sluice.sizing.testing.KubernetesSchemas;

import static io.sluice.sizing.testing.DeploymentChecks.assertConsistent;
import static io.sluice.sizing.testing.DeploymentChecks.container;
import static io.sluice.sizing.testing.DeploymentChecks.jvmOptions;
import static io.sluice.sizing.testing.DeploymentChecks.millicores;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@code sluice size} writes a complete Deployment that the Kubernetes API accepts, whose memory limit holds the JVM
 * its options configure, and whose options keep the collector and processor count the runs were measured with.
 */
class ResourcesYamlTest {

    /** The committed runs docs/sizing.md reports (-Xmx512m -XX:+UseParallelGC, 2 cores). */
    static final Path COMMITTED_RUNS = Path.of("..", "docs", "sizing-runs", "2026-11-22");
    private static final PrintStream NOWHERE = new PrintStream(OutputStream.nullOutputStream());
    static final ObjectMapper YAML = new ObjectMapper(new YAMLFactory());

    @TempDir
    Path out;

    @Test
    void theDeploymentsWrittenForTheCommittedRunsAreValidAndHoldTheirJvm() throws Exception {
        TrafficSpec[] inputs = {
                traffic(50, 1, 2000),      // docs/kubernetes.md's traffic: 300m, 2 replicas
                traffic(2, 0, 2000),       // the least: the 100m floor, still 2 processors
                traffic(400, 2, 300),      // spread over several pods
                traffic(5000, 1, 4000),    // more CPUs than measured on
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
        Path file = size(runs, "synthetic", traffic(100, 1, 2000)).resolve("resources-passthrough.yaml");

        KubernetesSchemas.assertValid(file);
        JsonNode deployment = YAML.readTree(file.toFile());
        assertThat(jvmOptions(deployment)).containsEntry("-Xmx", "512m").containsKey("-XX:+UseG1GC");
        assertThat(Files.readString(out.resolve("synthetic/summary.txt"))).contains("no run named its collector: the pod uses -XX:+UseG1GC");
        assertConsistent(deployment);
    }

    /** `sluice size`'s defaults besides the traffic: 1024-byte messages, headroom x1.3. */
    private static TrafficSpec traffic(double produceMBps, int consumerGroups, int podMaxMillicores) {
        return new TrafficSpec(produceMBps, consumerGroups, 1024, 1.3, podMaxMillicores);
    }

    /** What `sluice size --runs RUNS --out OUT/NAME` with this traffic writes. */
    private Path size(Path runs, String name, TrafficSpec traffic) throws Exception {
        Path dir = out.resolve(name);
        SizingOutput.writeProxy(Sizing.of(runs, ResultSetReader.read(runs), traffic, false), runs, dir, NOWHERE);
        return dir;
    }
}
