package io.sluice.app.cli;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.Callable;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;

import io.sluice.sizing.testing.SweepFixture;

import static org.assertj.core.api.Assertions.assertThat;

class SizeCommandTest {

    @TempDir
    Path runs;

    @Test
    void printsTheFitThePlanAndAPasteableDeployment() throws Exception {
        SweepFixture.write(runs);

        Output output = capture(() -> Main.commandLine().execute("size", "--runs", runs.toString(), "--produce-mb-s", "50",
                "--consumer-groups", "2", "--message-bytes", "1024"));

        System.out.print(output.out);
        assertThat(output.status).isZero();
        assertThat(output.out)
                .contains("10 runs under")
                .contains("sluice-bench")
                .contains("sizing for: 50.0 MB/s produced, 2 consumer group(s) = 150.0 MB/s through the proxy")
                .contains("== passthrough: 5 runs, 4 healthy, 1 saturated ==")
                .contains("published 80.0 % of the target")
                .contains("millicores per MB/s of total traffic")
                .contains("Kroxylicious publishes 10 mc per MB/s")
                .contains("one core (1000 mc) carries")
                .contains("the fit is extrapolated")
                .contains("== direct: 5 runs, 4 healthy, 1 saturated ==")
                .contains("no proxy CPU in these runs");
        Path yaml = runs.resolve("sizing-report/resources-passthrough.yaml");
        assertThat(yaml).exists();
        assertThat(runs.resolve("sizing-report/report.html")).exists();
        assertThat(runs.resolve("sizing-report/summary.txt")).hasContent(output.out.substring(0, output.out.indexOf("\n\n# sluice size")).strip() + "\n");

        // The snippet is valid YAML with what Kubernetes needs. 150 MB/s is past the 60 MB/s measured, so the fit's upper
        // bound there is well above its centre (about 415 mc): ~465 mc x1.3 = ~604, rounded up to 700m.
        JsonNode deployment = new ObjectMapper(new YAMLFactory()).readTree(yaml.toFile());
        assertThat(deployment.at("/spec/replicas").asInt()).isEqualTo(2);
        JsonNode resources = deployment.at("/spec/template/spec/containers/0/resources");
        assertThat(resources.at("/requests/cpu").asText()).isEqualTo(resources.at("/limits/cpu").asText()).isEqualTo("700m");
        // Memory holds the JVM the runs recorded (-Xmx512m, no collector named: G1, as the JVM chose on 2 cores):
        // 512 heap + 256 direct + 128 metaspace + 64 code cache + 64 G1 + 36 stacks + 48 native = 1108, rounded up to 1152.
        assertThat(resources.at("/requests/memory").asText()).isEqualTo(resources.at("/limits/memory").asText()).isEqualTo("1152Mi");
    }

    @Test
    void malformedResultsStopTheSizingAndAreEachNamed() throws Exception {
        SweepFixture.write(runs);
        Path broken = runs.resolve("passthrough/1topic-1partition-1kb-10mbps.json");
        Files.writeString(broken, "{\"workload\": \"x\"");

        Output output = capture(() -> Main.commandLine().execute("size", "--runs", runs.toString()));

        assertThat(output.status).isEqualTo(2);
        assertThat(output.err).contains("1 result file(s) cannot be used").contains(broken + ": is not valid JSON");
    }

    @Test
    void anEmptyDirectorySaysHowToMeasure() throws Exception {
        Output output = capture(() -> Main.commandLine().execute("size", "--runs", runs.toString()));

        assertThat(output.status).isEqualTo(2);
        assertThat(output.err).contains("no results under").contains("./sluice bench proxy --rates");
    }

    private record Output(int status, String out, String err) {
    }

    private static synchronized Output capture(Callable<Integer> body) throws Exception {
        PrintStream out = System.out;
        PrintStream err = System.err;
        ByteArrayOutputStream outBytes = new ByteArrayOutputStream();
        ByteArrayOutputStream errBytes = new ByteArrayOutputStream();
        try {
            System.setOut(new PrintStream(outBytes, true, StandardCharsets.UTF_8));
            System.setErr(new PrintStream(errBytes, true, StandardCharsets.UTF_8));
            int status = body.call();
            return new Output(status, outBytes.toString(StandardCharsets.UTF_8), errBytes.toString(StandardCharsets.UTF_8));
        } finally {
            System.setOut(out);
            System.setErr(err);
        }
    }
}
