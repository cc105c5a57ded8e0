package io.sluice.sizing.bridge;

import java.io.OutputStream;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Random;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import io.sluice.results.read.MalformedResultException;
import io.sluice.sizing.report.BridgeReport;
import io.sluice.sizing.report.SizingOutput;
import io.sluice.sizing.testing.DeploymentChecks;
import io.sluice.sizing.testing.KubernetesSchemas;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

class BridgeSizingTest {

    private static final PrintStream NOWHERE = new PrintStream(OutputStream.nullOutputStream());

    // The truth the synthetic runs follow: 80 mc idle, 6 mc per 1000 connections, 25 mc per 1000 msg/s delivered;
    // 200 MiB plus 40 MiB per 1000 connections.
    private static final double BASELINE = 80;
    private static final double PER_K_CONNECTIONS = 6;
    private static final double PER_K_MESSAGES = 25;

    @TempDir
    Path runs;

    @Test
    void recoversCostsPerConnectionAndPerMessageWithinTheirIntervals() throws Exception {
        writeSweep(runs.resolve("bridge/fanout-1kb.bridge.json"), new Random(5));

        List<BridgePoint> points = BridgeResultReader.readAll(runs);
        BridgeFit fit = BridgeFitter.fit("fanout-1kb", points);

        assertThat(points).hasSize(13);
        assertThat(fit.points()).hasSize(12);
        assertThat(fit.cpu().coefficient(1)).isCloseTo(PER_K_CONNECTIONS, within(fit.cpu().halfWidth95(1)));
        assertThat(fit.cpu().coefficient(2)).isCloseTo(PER_K_MESSAGES, within(fit.cpu().halfWidth95(2)));
        assertThat(fit.kibPerConnection().value()).isCloseTo(40 * 1024 / 1000.0, within(fit.kibPerConnection().halfWidth95()));
        // One core at 1 msg/s per user: (1000 − 80) / (6 + 25) thousand users.
        assertThat(fit.usersPerCore(1).value()).isCloseTo(1000 * (1000 - BASELINE) / (PER_K_CONNECTIONS + PER_K_MESSAGES),
                within(fit.usersPerCore(1).halfWidth95()));
    }

    @Test
    void aMillionUsersAtOneMessageASecondBecomePods() throws Exception {
        writeSweep(runs.resolve("fanout.bridge.json"), new Random(9));
        BridgeFit fit = BridgeFitter.fit("fanout-1kb", BridgeResultReader.readAll(runs));

        BridgePlan plan = BridgePlan.plan(fit, new AudienceSpec(1_000_000, 1, 1.3, 4000, 8L << 30));

        // CPU: 80 + 31 x 1000/n mc per pod must fit 4000 / 1.3; memory 200 + 40 x 1000/n MiB must fit 8 GiB / 1.3.
        assertThat(plan.podsForLoad()).isBetween(10, 14);
        assertThat(plan.replicas()).isEqualTo(plan.podsForLoad() + 1);
        assertThat(plan.millicoresPerPod()).isLessThanOrEqualTo(4000);
        assertThat(plan.memoryBytesPerPod()).isLessThanOrEqualTo(8L << 30);
        assertThat(plan.warnings()).isEmpty();
    }

    @Test
    void theBridgeReportShowsTheChartFirstThenTheSizingThenThePoints() throws Exception {
        writeSweep(runs.resolve("fanout.bridge.json"), new Random(9));
        BridgeFit fit = BridgeFitter.fit("fanout-1kb", BridgeResultReader.readAll(runs));
        BridgePlan plan = BridgePlan.plan(fit, new AudienceSpec(1_000_000, 1, 1.3, 4000, 8L << 30));

        String html = BridgeReport.html(List.of(fit), List.of(plan));

        int chart = html.indexOf("<svg ");
        assertThat(chart).isPositive().isLessThan(html.indexOf("one core serves")).isLessThan(html.indexOf("<table"));
        // The healthy points (those fitted) each as a CPU mark; this sweep records no latency.
        assertThat(html.split("class=\"point cpu\"", -1)).hasSize(12 + 1);
        assertThat(html).doesNotContain("class=\"point latency-mean");
        // The projection says what it rests on, and where measurement ends.
        long largest = fit.points().stream().mapToLong(BridgePoint::connections).max().orElseThrow();
        assertThat(BridgeReport.text(fit, plan)).contains("assumes: CPU linear in connections",
                "subscribers' TCP input", "beyond %,d connections, the largest measured, extrapolated".formatted(largest));
    }

    @Test
    void podsLargerThanAnythingMeasuredAreFlaggedAsExtrapolation() throws Exception {
        writeSweep(runs.resolve("fanout.bridge.json"), new Random(9));
        BridgeFit fit = BridgeFitter.fit("fanout-1kb", BridgeResultReader.readAll(runs));

        BridgePlan plan = BridgePlan.plan(fit, new AudienceSpec(1_000_000, 1, 1.3, 64_000, 128L << 30));

        assertThat(plan.podsForLoad()).isEqualTo(1);
        assertThat(plan.warnings()).anySatisfy(w -> assertThat(w).contains("extrapolated"));
    }

    @Test
    void aBridgeFileWithAMissingFieldNamesFileAndField() throws Exception {
        Path file = Files.writeString(runs.resolve("bad.bridge.json"), """
                {"tool": "sluice-bench-bridge", "scenario": "s", "messageBytes": 1024,
                 "points": [ {"connections": 10, "targetMessagesPerSecond": 10, "deliveredMessagesPerSecond": 10, "rssBytes": 1} ]}
                """);

        assertThatThrownBy(() -> BridgeResultReader.read(file))
                .isInstanceOf(MalformedResultException.class)
                .hasMessage(file + ": field 'points[0].cpuMillicores' is missing");
    }

    @Test
    void pointsWithoutRssAreReadWithTheirLatencyButMemoryIsNotSizedFromThem() throws Exception {
        StringBuilder points = new StringBuilder();
        long[] connections = { 1_000, 10_000, 19_000, 19_000 };
        double[] rates = { 1, 1, 1, 2.63 };
        for (int i = 0; i < connections.length; i++) {
            double messages = connections[i] * rates[i];
            points.append(i > 0 ? "," : "").append(String.format(Locale.ROOT, "{\"connections\": %d, \"targetMessagesPerSecond\": %.1f,"
                    + " \"deliveredMessagesPerSecond\": %.1f, \"cpuMillicores\": %.1f, \"deliveryLatencyMeanMs\": %.1f,"
                    + " \"deliveryLatencyP99Ms\": %.1f}", connections[i], messages, messages, 80 + connections[i] / 100.0 + messages / 50, 5.0 + i, 20.0 + i));
        }
        Files.writeString(runs.resolve("no-rss.bridge.json"), document("no-rss", points.toString()));

        List<BridgePoint> read = BridgeResultReader.readAll(runs);

        assertThat(read).hasSize(4).allSatisfy(p -> assertThat(p.rssBytes()).isEmpty());
        assertThat(read.get(3).deliveryLatencyMeanMs()).contains(8.0);
        assertThat(read.get(3).deliveryLatencyP99Ms()).contains(23.0);
        assertThat(read.get(3).targetMessagesPerConnection()).isCloseTo(2.63, within(1e-9));
        assertThatThrownBy(() -> BridgeFitter.fit("no-rss", read))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("4 of 4 healthy points have no rssBytes");
    }

    @Test
    void connectionsAndMessagesThatAlwaysRoseTogetherCannotBeSeparated() throws Exception {
        StringBuilder points = new StringBuilder();
        for (int i = 1; i <= 5; i++) {
            points.append(i > 1 ? "," : "").append(point(i * 1000L, i * 1000.0, i * 1000.0, 100 + 31 * i, (200L + 40 * i) << 20));
        }
        Files.writeString(runs.resolve("together.bridge.json"), document("together", points.toString()));

        assertThatThrownBy(() -> BridgeFitter.fit("together", BridgeResultReader.readAll(runs)))
                .hasMessageContaining("many idle connections and some with few busy ones");
    }

    /** 12 healthy points varying connections and message rate independently, and one saturated. */
    /**
     * {@code size bridge} writes a complete Deployment the Kubernetes API accepts, whose memory holds the JVM it
     * configures: for a large audience the heap follows the fitted memory, for a small one the JVM's fixed pools raise
     * the memory above what the fit asked.
     */
    @Test
    void sizeBridgeWritesValidDeploymentsWhoseMemoryHoldsTheirJvm() throws Exception {
        writeSweep(runs.resolve("fanout.bridge.json"), new Random(9));
        List<Path> files = new ArrayList<>();
        for (String users : List.of("1000000", "1000")) {
            Path out = runs.resolve("out-" + users);
            AudienceSpec audience = new AudienceSpec(Long.parseLong(users), 1, 1.3, 4000, 8192L << 20); // `size bridge`'s defaults
            assertThat(SizingOutput.writeBridge(BridgeResultReader.readAll(runs), audience, out, NOWHERE, System.err)).isZero();
            files.add(out.resolve("bridge-resources-fanout-1kb.yaml"));
        }

        KubernetesSchemas.assertValid(files.toArray(Path[]::new));
        ObjectMapper yaml = new ObjectMapper(new YAMLFactory());
        for (Path file : files) {
            JsonNode deployment = yaml.readTree(file.toFile());
            DeploymentChecks.assertConsistent(deployment);
            assertThat(deployment.at("/metadata/name").asText()).isEqualTo("sluice-bridge");
            assertThat(DeploymentChecks.jvmOptions(deployment)).containsKey("-XX:+UseParallelGC");
            // The same numbers as the Helm chart's bridge values (the app's HelmChartTest renders the chart with such a file).
            JsonNode values = yaml.readTree(file.resolveSibling("bridge-values-fanout-1kb.yaml").toFile()).get("bridge");
            JsonNode container = deployment.at("/spec/template/spec/containers/0");
            assertThat(values.get("replicas")).isEqualTo(deployment.at("/spec/replicas"));
            assertThat(values.get("resources")).isEqualTo(container.get("resources"));
            assertThat(values.get("javaOpts").asText()).isEqualTo(container.at("/env/0/value").asText());
        }
        JsonNode large = yaml.readTree(files.get(0).toFile());
        assertThat(large.at("/spec/replicas").asInt()).isGreaterThan(2);
        assertThat(DeploymentChecks.jvmOptions(large).get("-Xmx")).isNotEqualTo("256m");
        JsonNode small = yaml.readTree(files.get(1).toFile());
        assertThat(DeploymentChecks.jvmOptions(small)).containsEntry("-Xmx", "256m");
    }

    private static void writeSweep(Path file, Random random) throws Exception {
        Files.createDirectories(file.getParent());
        StringBuilder points = new StringBuilder();
        long[] connections = { 1_000, 10_000, 50_000, 100_000 };
        double[] perConnection = { 0.1, 0.5, 1 };
        for (long c : connections) {
            for (double rate : perConnection) {
                double messages = c * rate;
                double cpu = BASELINE + PER_K_CONNECTIONS * c / 1000 + PER_K_MESSAGES * messages / 1000 + 15 * random.nextGaussian();
                long rss = (long) ((200 + 40.0 * c / 1000 + 10 * random.nextGaussian()) * (1 << 20));
                points.append(points.length() == 0 ? "" : ",").append(point(c, messages, messages, cpu, rss));
            }
        }
        points.append(",").append(point(200_000, 200_000, 120_000, 3_950, 8_200L << 20));
        Files.writeString(file, document("fanout-1kb", points.toString()));
    }

    private static String document(String scenario, String points) {
        return String.format(Locale.ROOT, """
                {"tool": "sluice-bench-bridge", "scenario": "%s", "messageBytes": 1024, "cores": 2, "points": [%s]}
                """, scenario, points);
    }

    private static String point(long connections, double target, double delivered, double cpu, long rss) {
        return String.format(Locale.ROOT, "{\"connections\": %d, \"targetMessagesPerSecond\": %.1f, \"deliveredMessagesPerSecond\": %.1f,"
                + " \"cpuMillicores\": %.1f, \"rssBytes\": %d, \"failedConnections\": 0}", connections, target, delivered, cpu, rss);
    }
}
