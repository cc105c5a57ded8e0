package io.sluice.proxy.config;

import com.fasterxml.jackson.annotation.JsonCreator;
import com.fasterxml.jackson.annotation.JsonProperty;

/**
 * How many client connections a virtual cluster accepts at once, over all its gateways and ports. A connection
 * over a limit is closed as it is accepted, before the proxy reads a byte or opens a broker connection for it.
 *
 * @param maxConnections            open connections to the virtual cluster
 * @param maxConnectionsPerClientIp open connections from one client IP address to the virtual cluster; clients
 *                                  behind one NAT share an address, so leave room for them
 */
public record ConnectionLimitsConfig(int maxConnections, int maxConnectionsPerClientIp) {

    public static final int DEFAULT_MAX_CONNECTIONS = 10_000;
    public static final int DEFAULT_MAX_CONNECTIONS_PER_CLIENT_IP = 1_000;

    public static ConnectionLimitsConfig defaults() {
        return new ConnectionLimitsConfig(DEFAULT_MAX_CONNECTIONS, DEFAULT_MAX_CONNECTIONS_PER_CLIENT_IP);
    }

    @JsonCreator
    static ConnectionLimitsConfig fromYaml(@JsonProperty("maxConnections") Integer maxConnections,
                                           @JsonProperty("maxConnectionsPerClientIp") Integer maxConnectionsPerClientIp) {
        return new ConnectionLimitsConfig(maxConnections == null ? DEFAULT_MAX_CONNECTIONS : maxConnections,
                maxConnectionsPerClientIp == null ? DEFAULT_MAX_CONNECTIONS_PER_CLIENT_IP : maxConnectionsPerClientIp);
    }
}
