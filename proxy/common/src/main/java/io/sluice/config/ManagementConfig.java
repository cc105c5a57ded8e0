package io.sluice.config;

import com.fasterxml.jackson.annotation.JsonCreator;
import com.fasterxml.jackson.annotation.JsonProperty;

/**
 * The HTTP endpoint for health and metrics.
 *
 * @param port 0 picks a free port
 */
public record ManagementConfig(boolean enabled, String bindAddress, int port) {

    public static final String DEFAULT_BIND_ADDRESS = "127.0.0.1";
    public static final int DEFAULT_PORT = 9190;

    public ManagementConfig {
        bindAddress = bindAddress == null ? DEFAULT_BIND_ADDRESS : bindAddress;
    }

    public static ManagementConfig defaults() {
        return new ManagementConfig(true, DEFAULT_BIND_ADDRESS, DEFAULT_PORT);
    }

    @JsonCreator
    static ManagementConfig fromYaml(@JsonProperty("enabled") Boolean enabled,
                                     @JsonProperty("bindAddress") String bindAddress,
                                     @JsonProperty("port") Integer port) {
        return new ManagementConfig(!Boolean.FALSE.equals(enabled), bindAddress, port == null ? DEFAULT_PORT : port);
    }
}
