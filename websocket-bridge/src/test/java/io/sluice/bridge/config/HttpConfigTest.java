package io.sluice.bridge.config;

import java.time.Duration;
import java.util.Map;

import org.junit.jupiter.api.Test;

import io.sluice.config.ConfigException;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class HttpConfigTest {

    private static final String BASE = "kafka:\n  bootstrapServers: b:9092\ntopics: a\n";

    @Test
    void defaultsApplyWhenTheSectionIsAbsent() {
        assertThat(BridgeConfigLoader.parse(BASE, Map.of()).http())
                .isEqualTo(new HttpConfig(true, Duration.ofSeconds(15), 16, 4096, true, true, 100));
    }

    @Test
    void everyFieldCanBeSet() {
        HttpConfig http = BridgeConfigLoader.parse(BASE + "http:\n  enabled: false\n  heartbeat: 30s\n  maxEndpointsPerStream: 4\n"
                + "  maxLastEventIdBytes: 1024\n  cookieSecure: false\n  http2: false\n  maxConcurrentStreams: 8\n", Map.of()).http();
        assertThat(http).isEqualTo(new HttpConfig(false, Duration.ofSeconds(30), 4, 1024, false, false, 8));
    }

    @Test
    void badValuesAreReportedWithTheirField() {
        assertThatThrownBy(() -> BridgeConfigLoader.parse(BASE + "http:\n  heartbeat: 10ms\n  maxEndpointsPerStream: 0\n"
                + "  maxLastEventIdBytes: 10\n  maxConcurrentStreams: 0\n", Map.of()))
                .isInstanceOf(ConfigException.class)
                .satisfies(e -> assertThat(((ConfigException) e).problems()).containsExactlyInAnyOrder(
                        "http.heartbeat: must be at least 1s",
                        "http.maxEndpointsPerStream: must be 1..256",
                        "http.maxLastEventIdBytes: must be 64..65536",
                        "http.maxConcurrentStreams: must be 1..1000"));
    }
}
