package io.sluice.proxy.config;

import java.nio.file.Path;
import java.util.Map;

import io.sluice.config.ConfigLoader;

/** Reads the proxy configuration: the shared stages of {@link ConfigLoader}, then the proxy's {@link ConfigValidator}. */
public final class ProxyConfigLoader {

    private ProxyConfigLoader() {
    }

    /** Loads a file, substituting from the process environment. */
    public static ProxyConfig load(Path file) {
        return parse(ConfigLoader.read(file), System.getenv());
    }

    public static ProxyConfig parse(String yaml, Map<String, String> env) {
        return ConfigLoader.parse(yaml, env, ProxyConfig.class, ConfigValidator::validate);
    }
}
