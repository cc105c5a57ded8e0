package io.sluice.bridge.config;

import java.nio.file.Path;
import java.util.List;
import java.util.Map;

import io.sluice.proxy.config.ConfigException;
import io.sluice.proxy.config.ConfigLoader;

/**
 * Reads the bridge configuration with the proxy's loader stages (YAML, {@code ${VAR:-default}}, strict binding), so
 * both components accept the same syntax and report problems the same way, then checks it.
 */
public final class BridgeConfigLoader {

    private BridgeConfigLoader() {
    }

    public static BridgeConfig load(Path file) {
        return parse(ConfigLoader.read(file), System.getenv());
    }

    public static BridgeConfig parse(String yaml, Map<String, String> env) {
        BridgeConfig config = ConfigLoader.bind(ConfigLoader.tree(yaml, env), BridgeConfig.class, "");
        List<String> problems = BridgeConfigValidator.validate(config);
        if (!problems.isEmpty()) {
            throw new ConfigException(problems);
        }
        return config;
    }
}
