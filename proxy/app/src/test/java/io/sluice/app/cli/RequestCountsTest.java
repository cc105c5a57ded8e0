package io.sluice.app.cli;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

import io.sluice.bench.sweep.FixedRateLoad;
import io.sluice.bench.sweep.RateSweep;
import io.sluice.bench.targets.BenchTargets;
import io.sluice.results.ResultLayout;
import io.sluice.results.read.ResultSetReader;
import io.sluice.sizing.points.PointMeasurer;
import io.sluice.sizing.points.TrafficPoint;
import io.sluice.testkit.fixtures.SharedKafka;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The proxy's own request counters, read over a real run (a broker, the proxy in its own process, a fixed-rate load):
 * the same bytes with linger.ms 0 and with linger.ms 50 must show as many more Produce requests, and the sizing must
 * read them back.
 */
class RequestCountsTest {

    @TempDir
    Path out;

    @Test
    void aRunRecordsTheRequestsTheProxyAnsweredAndBatchingChangesThem() throws Exception {
        // 200 msg/s of 1 KiB: linger.ms 0 sends about one request per message; linger.ms 50 about 20 a second.
        FixedRateLoad.Batching eager = new FixedRateLoad.Batching(0, 16_384);
        FixedRateLoad.Batching lingering = new FixedRateLoad.Batching(50, 1 << 20);
        RateSweep.Settings settings = new RateSweep.Settings(List.of(0.2048), 1024, Duration.ofSeconds(1), Duration.ofSeconds(4),
                Duration.ofSeconds(2), List.of("-Xmx256m"), List.of(eager, lingering));
        ByteArrayOutputStream log = new ByteArrayOutputStream();

        new RateSweep(settings, out, new PrintStream(log, true, StandardCharsets.UTF_8), Main.class.getName())
                .run(SharedKafka.bootstrap(), BenchTargets.resolve(List.of("passthrough")));

        System.out.print(log.toString(StandardCharsets.UTF_8));
        JsonNode eagerRequests = requests("1topic-1partition-1kb-0.2048mbps-linger0-16kb");
        JsonNode lingeringRequests = requests("1topic-1partition-1kb-0.2048mbps-linger50-1mb");
        for (JsonNode r : List.of(eagerRequests, lingeringRequests)) {
            assertThat(r.get("seconds").asDouble()).isBetween(3.0, 20.0);
            assertThat(r.get("produce").asLong()).isPositive();
            assertThat(r.get("fetch").asLong()).isPositive();
            assertThat(r.get("total").asLong()).isGreaterThanOrEqualTo(r.get("produce").asLong() + r.get("fetch").asLong());
            assertThat(r.get("producePerSecond").asDouble()).isEqualTo(r.get("produce").asLong() / r.get("seconds").asDouble());
        }
        // ~200 against ~20 Produce requests a second: the same bytes, ten times the requests.
        assertThat(eagerRequests.get("producePerSecond").asDouble()).isBetween(100.0, 260.0);
        assertThat(lingeringRequests.get("producePerSecond").asDouble()).isBetween(10.0, 40.0);
        assertThat(log.toString(StandardCharsets.UTF_8)).contains("Produce +").contains("Fetch requests/s");

        List<TrafficPoint> points = ResultSetReader.read(out).runs().stream().map(PointMeasurer::measure).toList();
        assertThat(points).hasSize(2).allSatisfy(p -> assertThat(p.totalKRequestsPerSecond()).isPresent());
    }

    private JsonNode requests(String workload) throws Exception {
        JsonNode run = new ObjectMapper().readTree(ResultLayout.run(out, "passthrough", workload).toFile());
        JsonNode requests = run.get("proxy").get("requests");
        assertThat(requests).as(workload + ": proxy.requests in run.json").isNotNull();
        return requests;
    }
}
