package io.sluice.results.read;

import java.net.URISyntaxException;
import java.nio.file.Path;
import java.util.Objects;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

/** Results from a real OMB run (local mode, Kafka driver), stored with their workloads as OMB users keep them. */
class RealOmbResultsTest {

    @Test
    void readsOmbsFieldsAndUnits() {
        OmbResult result = OmbResultReader.read(dir().resolve("10topics-1partition-1kb-5k.json"));

        assertThat(result.workload()).isEqualTo("10topics-1partition-1kb-5k");
        assertThat(result.driver()).isEqualTo("Kafka");
        assertThat(result.messageSize()).isEqualTo(1024);
        assertThat(result.topics()).isEqualTo(10);
        assertThat(result.publishRate()).hasSize(6);
        // producerRate is for the whole workload: 5,000 msg/s over all 10 topics, not per topic.
        assertThat(result.meanPublishRate()).isCloseTo(5000, within(50.0));
        assertThat(result.meanConsumeRate()).isCloseTo(5000, within(50.0));
        assertThat(result.publishLatency99Ms()).isCloseTo(404.045, within(1e-9));
        // Publish delay is in microseconds.
        assertThat(result.publishDelay50Micros()).hasValue(172.0);
    }

    /** The stored results; also read by the sizing's RealOmbPointsTest, from this module's folder. */
    static Path dir() {
        try {
            return Path.of(Objects.requireNonNull(RealOmbResultsTest.class.getResource("/omb-results/kafka-local.driver.yaml")).toURI()).getParent();
        } catch (URISyntaxException e) {
            throw new IllegalStateException(e);
        }
    }
}
