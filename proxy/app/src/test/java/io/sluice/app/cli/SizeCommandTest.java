package io.sluice.app.cli;

import java.io.ByteArrayOutputStream;
import java.io.InputStream;
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

import io.sluice.results.testing.SweepFixture;
import io.sluice.results.testing.SyntheticRuns;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

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

    @Test
    void sizesByRequestsAndBytesFromTheTrafficsShapeAndShowsTheFitsError() throws Exception {
        // The same bytes in batches of different sizes: CPU = 12 + 0.5 x MB/s + 20 x 1000 requests/s.
        for (double produceMBps : new double[] { 5, 10, 20, 40 }) {
            for (double requests : new double[] { 200, 1_000, 5_000 }) {
                SyntheticRuns.writeWithRequests(runs, "passthrough", "w-" + (int) produceMBps + "-" + (int) requests, 1024,
                        produceMBps * 1e6 / 1024, 12 + 0.5 * 2 * produceMBps + 20 * 2 * requests / 1000, requests, requests);
            }
        }

        // 20,000 msg/s of 1 KiB with linger.ms 50 and 1 MiB batches: 20 Produce + 20 Fetch requests a second.
        Output lingering = capture(() -> Main.commandLine().execute("size", "--runs", runs.toString(), "--message-rate", "20000",
                "--message-bytes", "1024", "--consumer-groups", "1", "--linger-ms", "50", "--batch-bytes", "1048576"));
        // The same bytes with linger.ms 0 and 16 KiB batches: 16 KiB fill 1,250 times a second, but linger.ms 0 sends
        // whenever the sender is free, taken as every 0.2 ms: 5,000 Produce + 5,000 Fetch requests a second.
        Output small = capture(() -> Main.commandLine().execute("size", "--runs", runs.toString(), "--message-rate", "20000",
                "--message-bytes", "1024", "--consumer-groups", "1", "--linger-ms", "0", "--batch-bytes", "16384"));

        System.out.print(lingering.out);
        assertThat(lingering.status).isZero();
        assertThat(lingering.out)
                .contains("sizing for: 20.5 MB/s produced, 1 consumer group(s) = 41.0 MB/s through the proxy")
                .contains("40 requests/s (20 Produce/s + 20 Fetch/s from the shape (linger.ms 50, batch.size 1048576")
                .contains("note: model: requests and bytes")
                .contains("fit: millicores = baseline + b x MB/s + r x (1000 requests/s)")
                .contains("per 1000 requests/s")
                .contains("error: RMS")
                .containsPattern("w-20-1000 +40\\.0 MB/s +2,000 req/s +measured +72 mc +fitted +72 mc +residual +[+-]0\\.0 mc");
        assertThat(small.status).isZero();
        assertThat(small.out).contains("10,000 requests/s (5,000 Produce/s + 5,000 Fetch/s");
        // 12 + 0.5 x 41 + 20 x 0.04 = 33 mc against 12 + 0.5 x 41 + 20 x 10 = 232 mc: the batching, not the bytes, makes the difference.
        assertThat(needed(lingering.out)).isCloseTo(33.3, within(0.1));
        assertThat(needed(small.out)).isCloseTo(232.5, within(0.1));
    }

    @Test
    void requestsCanBeGivenDirectly() throws Exception {
        SweepFixture.write(runs);

        Output output = capture(() -> Main.commandLine().execute("size", "--runs", runs.toString(), "--produce-mb-s", "50",
                "--requests-per-second", "4000"));

        assertThat(output.status).isZero();
        // The fixture's runs counted no requests: the bytes line is used, and the summary says so.
        assertThat(output.out).contains("4,000 requests/s (given)").contains("model: bytes only: 4 of 4 runs recorded no request counts");
    }

    @Test
    void eachBadTrafficOptionIsNamed() throws Exception {
        SweepFixture.write(runs);
        String dir = runs.toString();
        String[][] cases = {
                { "--linger-ms", "-1" }, { "--batch-bytes", "0" }, { "--producers", "0" }, { "--partitions", "-2" },
                { "--message-rate", "0" }, { "--requests-per-second", "-5" }, { "--message-bytes", "0" }, { "--produce-mb-s", "0" },
                { "--consumer-groups", "-1" },
        };
        for (String[] bad : cases) {
            Output output = capture(() -> Main.commandLine().execute("size", "--runs", dir, bad[0], bad[1]));
            assertThat(output.status).as(bad[0]).isEqualTo(2);
            assertThat(output.err).as(bad[0]).contains(bad[0] + " must be");
        }
        Output both = capture(() -> Main.commandLine().execute("size", "--runs", dir, "--requests-per-second", "100", "--linger-ms", "5"));
        assertThat(both.status).isEqualTo(2);
        assertThat(both.err).contains("--requests-per-second").contains("--linger-ms").contains("give one or the other");
        Output rates = capture(() -> Main.commandLine().execute("size", "--runs", dir, "--message-rate", "100", "--produce-mb-s", "5"));
        assertThat(rates.status).isEqualTo(2);
        assertThat(rates.err).contains("--message-rate and --produce-mb-s");
    }

    /** The stored results of a real OMB run (the broker directly, no run.json): listed, never fitted, and the summary says why. */
    @Test
    void sizesTheStoredRealOmbResults() throws Exception {
        for (String name : new String[] { "10topics-1partition-1kb-5k", "2topics-2partitions-2p-1kb-2k" }) {
            for (String suffix : new String[] { ".json", ".workload.yaml" }) {
                try (InputStream in = SizeCommandTest.class.getResourceAsStream("/omb-results/" + name + suffix)) {
                    assertThat(in).as(name + suffix).isNotNull();
                    Files.createDirectories(runs.resolve("direct"));
                    Files.write(runs.resolve("direct").resolve(name + suffix), in.readAllBytes());
                }
            }
        }

        Output output = capture(() -> Main.commandLine().execute("size", "--runs", runs.toString(), "--message-rate", "5000",
                "--linger-ms", "5", "--batch-bytes", "16384"));

        System.out.print(output.out);
        assertThat(output.status).isZero();
        assertThat(output.out)
                .contains("2 runs under")
                .contains("openmessaging-benchmark (no run.json: no CPU samples)")
                .contains("5.1 MB/s produced")
                .contains("== direct: 2 runs, 2 healthy, 0 saturated ==")
                .contains("no proxy CPU in these runs");
    }

    private static double needed(String out) {
        java.util.regex.Matcher m = java.util.regex.Pattern.compile("pod\\(s\\) at [0-9.]+ MB/s each need ([0-9.]+) ±").matcher(out);
        assertThat(m.find()).as("the plan's need per pod in:%n%s", out).isTrue();
        return Double.parseDouble(m.group(1));
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
