package io.sluice.app.cli;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

import io.sluice.bench.targets.BenchTargets;
import io.sluice.omb.run.OmbInstallation;
import io.sluice.omb.run.OmbRunner;
import io.sluice.omb.workload.WorkloadCatalog;
import io.sluice.omb.workload.WorkloadFile;
import io.sluice.results.ResultLayout;
import io.sluice.testkit.fixtures.SharedKafka;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The runner against a stand-in for OMB that behaves as OMB does in local mode: it logs its phases, writes its
 * result, and never exits.
 */
class OmbRunnerTest {

    @TempDir
    Path dir;
    Path out;
    Path ombHome;
    Path realResult;

    @BeforeEach
    void fakeOmb() throws IOException {
        ombHome = Files.createDirectories(dir.resolve("omb"));
        Path script = Files.createDirectories(ombHome.resolve("bin")).resolve("benchmark");
        try (InputStream in = OmbRunnerTest.class.getResourceAsStream("/fake-omb-benchmark")) {
            Files.write(script, in.readAllBytes());
        }
        Files.setPosixFilePermissions(script, PosixFilePermissions.fromString("rwxr-xr-x"));
        realResult = dir.resolve("real.json");
        try (InputStream in = OmbRunnerTest.class.getResourceAsStream("/real-omb-result.json")) {
            Files.write(realResult, in.readAllBytes());
        }
        out = dir.resolve("results");
    }

    @Test
    void storesOmbsResultWithARunRecordAndStopsOmb() throws Exception {
        WorkloadFile workload = WorkloadCatalog.load().select("10topics-1partition-1kb-5k").get(0);
        ByteArrayOutputStream log = new ByteArrayOutputStream();

        // The app has every filter, so the target this build cannot run names a filter type that no build has.
        Path unavailable = Files.writeString(dir.resolve("unavailable.yaml"), BenchTargets.resolve("passthrough").proxyConfigTemplate()
                .replace("filters: []", "filters: [missing]")
                .replace("virtualClusters:", "filterDefinitions:\n  - name: missing\n    type: NoSuchFilter\nvirtualClusters:"));
        List<Path> written = runner(Map.of("FAKE_OMB_RESULT", realResult.toString()), log)
                .run("127.0.0.1:9092", BenchTargets.resolve(List.of("direct", "unavailable=" + unavailable)), List.of(workload));

        Path result = ResultLayout.result(out, "direct", "10topics-1partition-1kb-5k");
        assertThat(written).containsExactly(result);
        assertThat(result).hasSameTextualContentAs(realResult);
        assertThat(ResultLayout.workload(out, "direct", "10topics-1partition-1kb-5k")).hasContent(workload.yaml());
        JsonNode run = new ObjectMapper().readTree(ResultLayout.run(out, "direct", "10topics-1partition-1kb-5k").toFile());
        assertThat(run.get("tool").asText()).isEqualTo("openmessaging-benchmark");
        assertThat(run.get("target").asText()).isEqualTo("direct");
        assertThat(run.get("workload").get("producerRate").asDouble()).isEqualTo(5000);
        assertThat(run.has("proxy")).isFalse();
        // The window starts at OMB's "Starting benchmark traffic" and ends when the result appeared: about 3 s here.
        long window = run.get("measuredToMs").asLong() - run.get("measuredFromMs").asLong();
        assertThat(window).isBetween(1_500L, 10_000L);
        assertThat(run.get("versions").get("openmessaging-benchmark").asText()).isEqualTo("unknown");

        Path work = out.resolve(".omb-work/direct/10topics-1partition-1kb-5k");
        assertThat(Files.readString(work.resolve("result.json.driver"))).contains("bootstrap.servers=127.0.0.1:9092").contains("name: Kafka-direct");
        long pid = Long.parseLong(Files.readString(work.resolve("result.json.pid")).strip());
        assertThat(ProcessHandle.of(pid).map(ProcessHandle::isAlive).orElse(false)).as("OMB stopped").isFalse();
        assertThat(Files.readString(work.resolve("omb.log"))).contains("Starting benchmark traffic");

        // A target this build cannot run is skipped, and says why.
        assertThat(log.toString(StandardCharsets.UTF_8)).contains("skipping target 'unavailable'").contains("NoSuchFilter");
    }

    @Test
    void samplesTheProxysCpuAndMemoryWhileOmbRuns() throws Exception {
        WorkloadFile workload = WorkloadCatalog.load().select("10topics-1partition-1kb-5k").get(0);

        runner(Map.of("FAKE_OMB_RESULT", realResult.toString()), new ByteArrayOutputStream())
                .run(SharedKafka.bootstrap(), BenchTargets.resolve(List.of("passthrough")), List.of(workload));

        JsonNode run = new ObjectMapper().readTree(ResultLayout.run(out, "passthrough", "10topics-1partition-1kb-5k").toFile());
        JsonNode proxy = run.get("proxy");
        assertThat(proxy.get("cpuSource").asText()).containsAnyOf("/proc/", "cgroup");
        assertThat(proxy.get("config").asText()).contains("${KAFKA_BOOTSTRAP}");
        assertThat(proxy.get("samples").size()).isGreaterThanOrEqualTo(3);
        assertThat(proxy.get("samples").get(0).get("rssBytes").asLong()).isPositive();
        assertThat(proxy.has("gc")).isTrue();
        // The driver OMB was given points at the proxy, not at the broker.
        String driver = Files.readString(out.resolve(".omb-work/passthrough/10topics-1partition-1kb-5k/result.json.driver"));
        assertThat(driver).contains("name: Kafka-sluice-passthrough").doesNotContain("${");
    }

    @Test
    void aBatchingWorkloadRunsWithItsOwnProducerSettings() throws Exception {
        WorkloadFile workload = WorkloadCatalog.load().select("batching-1kb-20mbps-linger50-1mb").get(0);

        runner(Map.of("FAKE_OMB_RESULT", realResult.toString()), new ByteArrayOutputStream())
                .run("127.0.0.1:9092", BenchTargets.resolve(List.of("direct")), List.of(workload));

        String driver = Files.readString(out.resolve(".omb-work/direct/batching-1kb-20mbps-linger50-1mb/result.json.driver"));
        assertThat(driver).contains("linger.ms=50").contains("batch.size=1048576").contains("acks=all").doesNotContain("linger.ms=1\n");
    }

    @Test
    void aRelativeResultsDirectoryStillNamesTheFilesOmbReadsFromItsOwnDirectory() throws Exception {
        // OMB runs in its home directory; a results directory given relative to ours (the scenario's default) must
        // reach it as absolute paths, or OMB finds no workload file and exits 1.
        out = Path.of("").toAbsolutePath().relativize(dir.resolve("relative-results"));
        WorkloadFile workload = WorkloadCatalog.load().select("10topics-1partition-1kb-5k").get(0);

        List<Path> written = runner(Map.of("FAKE_OMB_RESULT", realResult.toString()), new ByteArrayOutputStream())
                .run("127.0.0.1:9092", BenchTargets.resolve(List.of("direct")), List.of(workload));

        assertThat(written).hasSize(1);
        assertThat(written.get(0)).hasSameTextualContentAs(realResult);
    }

    @Test
    void aFailureOmbReportsEndsTheRunWithItsLog() {
        WorkloadFile workload = WorkloadCatalog.load().select("10topics-1partition-1kb-5k").get(0);

        assertThatThrownBy(() -> runner(Map.of("FAKE_OMB_RESULT", dir.resolve("missing.json").toString(), "FAKE_OMB_FAIL", "1"),
                new ByteArrayOutputStream()).run("127.0.0.1:9092", BenchTargets.resolve(List.of("direct")), List.of(workload)))
                .hasMessageContaining("OMB reported 'Failed to run the workload'")
                .hasMessageContaining("Starting benchmark traffic");
    }

    @Test
    void anOmbHomeWithoutOmbSaysHowToBuildIt() {
        assertThatThrownBy(() -> OmbInstallation.at(dir.resolve("nothing").toString()))
                .hasMessageContaining("not an OMB checkout")
                .hasMessageContaining("github.com/openmessaging/benchmark")
                .hasMessageContaining("./sluice bench proxy --rates");
        assertThatThrownBy(() -> OmbInstallation.at(null)).hasMessageContaining("OMB_HOME is not set");
    }

    private OmbRunner runner(Map<String, String> env, ByteArrayOutputStream log) {
        return new OmbRunner(OmbInstallation.at(ombHome.toString()),
                new OmbRunner.Settings(Main.class.getName(), out, List.of("-Xmx256m"), Duration.ofMinutes(2), env), new PrintStream(log, true, StandardCharsets.UTF_8));
    }
}
