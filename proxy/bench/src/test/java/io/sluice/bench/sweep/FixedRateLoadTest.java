package io.sluice.bench.sweep;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import com.fasterxml.jackson.databind.JsonNode;

import io.kroxylicious.testing.kafka.api.KafkaCluster;
import io.kroxylicious.testing.kafka.junit5ext.KafkaClusterExtension;
import io.sluice.results.OmbResultJson;
import io.sluice.results.Workload;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

@ExtendWith(KafkaClusterExtension.class)
class FixedRateLoadTest {

    @Test
    void holdsTheRateAndWritesOmbFieldsInOmbUnits(KafkaCluster cluster) throws Exception {
        FixedRateLoad load = new FixedRateLoad(new FixedRateLoad.Settings(512, 400, Duration.ofSeconds(2), Duration.ofSeconds(6), Duration.ofSeconds(2)));
        AtomicInteger windowStarts = new AtomicInteger();

        FixedRateLoad.Result result = load.run(cluster.getBootstrapServers(), cluster.getBootstrapServers(), "fixed-rate", windowStarts::incrementAndGet);

        assertThat(windowStarts).hasValue(1);
        assertThat(result.intervals()).hasSize(3);
        assertThat(result.measuredToMs() - result.measuredFromMs()).isBetween(5_500L, 9_000L);
        double published = result.intervals().stream().mapToDouble(OmbResultJson.Interval::publishRate).average().orElseThrow();
        double consumed = result.intervals().stream().mapToDouble(OmbResultJson.Interval::consumeRate).average().orElseThrow();
        assertThat(published).isCloseTo(400, within(40.0));
        assertThat(consumed).isCloseTo(400, within(60.0));
        assertThat(result.endToEnd().getTotalCount()).isPositive();

        Workload workload = new Workload("w", 1, 1, 512, null, 1, 1, 1, 400, 0, 0.1, 0.0);
        JsonNode json = OmbResultJson.of(workload, "test", result.intervals(), result.publishLatency(), result.publishDelay(), result.endToEnd());
        assertThat(json.get("publishRate")).hasSize(3);
        assertThat(json.get("backlog")).hasSize(3);
        // Publish latency in ms, publish delay in µs, as OMB writes them.
        assertThat(json.get("aggregatedPublishLatency50pct").asDouble())
                .isCloseTo(result.publishLatency().getValueAtPercentile(50) / 1000.0, within(1e-9));
        assertThat(json.get("aggregatedPublishDelayLatency50pct").asDouble())
                .isCloseTo((double) result.publishDelay().getValueAtPercentile(50), within(1e-9));
        assertThat(json.get("endToEndLatency99pct")).hasSize(3);
    }
}
