package io.sluice.bridge.config;

import java.time.Duration;

import com.fasterxml.jackson.annotation.JsonCreator;
import com.fasterxml.jackson.annotation.JsonProperty;

import io.sluice.auth.JwtConfig;

/**
 * How clients prove who they are.
 *
 * @param connectTimeout how long a new connection may take to send its {@code connect} message
 * @param expiryWarning  how long before its token expires a client is sent {@code expiring}
 * @param jwt            how tokens are validated: the same section, fields and validation as the proxy's JwtAuth filter
 *                       (docs/jwt.md); required to run a node, optional here so tests can plug in another authenticator
 */
public record AuthConfig(Duration connectTimeout, Duration expiryWarning, JwtConfig jwt) {

    public static final Duration DEFAULT_CONNECT_TIMEOUT = Duration.ofSeconds(10);
    public static final Duration DEFAULT_EXPIRY_WARNING = Duration.ofSeconds(30);

    public AuthConfig {
        connectTimeout = connectTimeout == null ? DEFAULT_CONNECT_TIMEOUT : connectTimeout;
        expiryWarning = expiryWarning == null ? DEFAULT_EXPIRY_WARNING : expiryWarning;
    }

    public static AuthConfig defaults() {
        return new AuthConfig(null, null, null);
    }

    @JsonCreator
    static AuthConfig fromYaml(@JsonProperty("connectTimeout") Duration connectTimeout,
                               @JsonProperty("expiryWarning") Duration expiryWarning,
                               @JsonProperty("jwt") JwtConfig jwt) {
        return new AuthConfig(connectTimeout, expiryWarning, jwt);
    }
}
