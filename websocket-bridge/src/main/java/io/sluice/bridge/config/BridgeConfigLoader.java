package io.sluice.bridge.config;

import java.nio.file.Path;
import java.util.Map;

import io.sluice.config.ConfigLoader;

/**
 * Reads the bridge configuration with the loader stages every Sluice server shares (YAML, {@code ${VAR:-default}}, strict binding), so
 * both components accept the same syntax and report problems the same way, then checks it.
 */
public final class BridgeConfigLoader {

    private BridgeConfigLoader() {
    }

    public static BridgeConfig load(Path file) {
        return parse(ConfigLoader.read(file), System.getenv());
    }

    public static BridgeConfig parse(String yaml, Map<String, String> env) {
        return ConfigLoader.parse(yaml, env, BridgeConfig.class, BridgeConfigValidator::validate);
    }
}
