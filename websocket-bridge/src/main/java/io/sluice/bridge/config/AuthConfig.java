package io.sluice.bridge.config;

import java.time.Duration;

import com.fasterxml.jackson.annotation.JsonCreator;
import com.fasterxml.jackson.annotation.JsonProperty;

/**
 * How clients prove who they are.
 *
 * @param connectTimeout how long a new connection may take to send its {@code connect} message
 * @param expiryWarning  how long before its token expires a client is sent {@code expiring}
 * @param jwt            JWT validation settings; see docs/bridge.md for when they take effect
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

    /**
     * @param jwks     where the signing keys are: a URL or a file of a JSON Web Key Set
     * @param issuer   required {@code iss}
     * @param audience required {@code aud}
     */
    public record JwtConfig(String jwks, String issuer, String audience) {

        @JsonCreator
        static JwtConfig fromYaml(@JsonProperty("jwks") String jwks,
                                  @JsonProperty("issuer") String issuer,
                                  @JsonProperty("audience") String audience) {
            return new JwtConfig(jwks, issuer, audience);
        }
    }
}
