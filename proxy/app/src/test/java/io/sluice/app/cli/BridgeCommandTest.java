package io.sluice.app.cli;

import java.util.Map;

import org.junit.jupiter.api.Test;

import io.sluice.bridge.auth.JwtAuthenticator;
import io.sluice.bridge.config.BridgeConfigLoader;
import io.sluice.config.ConfigException;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class BridgeCommandTest {

    @Test
    void bridgeCommandIsFoundByTheLauncherAndRefusesToRunWithoutJwt() {
        assertThat(Main.commandLine().getSubcommands()).containsKeys("bridge", "proxy");
        var config = BridgeConfigLoader.parse("kafka:\n  bootstrapServers: b:9092\ntopics: a\n", Map.of());
        assertThatThrownBy(() -> JwtAuthenticator.forBridge(config))
                .isInstanceOf(ConfigException.class).hasMessageContaining("auth.jwt");
    }
}
