package io.sluice.bridge.config;

import java.util.Map;

import org.junit.jupiter.api.Test;

import io.sluice.config.ConfigException;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class DeltaConfigTest {

    private static final String BASE = "kafka:\n  bootstrapServers: b:9092\ntopics: a\n";

    @Test
    void defaultsApplyWhenTheSectionIsAbsent() {
        BridgeConfig config = BridgeConfigLoader.parse(BASE, Map.of());
        assertThat(config.delta()).isEqualTo(new DeltaConfig(65_536, 1_000_000));
    }

    @Test
    void zeroTurnsDeltasOffAndIsValid() {
        BridgeConfig config = BridgeConfigLoader.parse(BASE + "delta:\n  maxValueBytes: 0\n  maxDiffWork: 0\n", Map.of());
        assertThat(config.delta()).isEqualTo(new DeltaConfig(0, 0));
    }

    @Test
    void negativeLimitsAreReportedWithTheirField() {
        assertThatThrownBy(() -> BridgeConfigLoader.parse(BASE + "delta:\n  maxValueBytes: -1\n  maxDiffWork: -5\n", Map.of()))
                .isInstanceOf(ConfigException.class)
                .satisfies(e -> assertThat(((ConfigException) e).problems()).containsExactlyInAnyOrder(
                        "delta.maxValueBytes: must be 0 (no deltas) or more",
                        "delta.maxDiffWork: must be 0 (no deltas) or more"));
    }

    @Test
    void anUnknownFieldIsAnError() {
        assertThatThrownBy(() -> BridgeConfigLoader.parse(BASE + "delta:\n  maxBytes: 10\n", Map.of()))
                .isInstanceOf(ConfigException.class)
                .hasMessageContaining("maxBytes");
    }
}
