package io.sluice.auth;

import java.time.Duration;
import java.util.List;

/**
 * JwtConfigs for tests, built field by field; production binds them from YAML. Starts from a JWKS source and the
 * defaults; setting another key source replaces the JWKS, as a config holds exactly one.
 */
final class TestJwtConfig {

    private String jwks;
    private String publicKeyFile;
    private String hmacSecret;
    private final String issuer;
    private final String audience;
    private List<String> algorithms;
    private Duration jwksTimeout;
    private Duration maxSessionLifetime;
    private boolean allowHttpJwks;
    private int maxQueuedValidations = JwtConfig.DEFAULT_MAX_QUEUED_VALIDATIONS;

    private TestJwtConfig(String jwks, String issuer, String audience) {
        this.jwks = jwks;
        this.issuer = issuer;
        this.audience = audience;
    }

    static TestJwtConfig jwks(String jwks, String issuer, String audience) {
        return new TestJwtConfig(jwks, issuer, audience);
    }

    TestJwtConfig publicKeyFile(String file) {
        jwks = null;
        hmacSecret = null;
        publicKeyFile = file;
        return this;
    }

    TestJwtConfig hmacSecret(String secret) {
        jwks = null;
        publicKeyFile = null;
        hmacSecret = secret;
        return this;
    }

    TestJwtConfig algorithms(List<String> value) {
        algorithms = value;
        return this;
    }

    TestJwtConfig jwksTimeout(Duration value) {
        jwksTimeout = value;
        return this;
    }

    TestJwtConfig maxSessionLifetime(Duration value) {
        maxSessionLifetime = value;
        return this;
    }

    TestJwtConfig allowHttpJwks(boolean value) {
        allowHttpJwks = value;
        return this;
    }

    TestJwtConfig maxQueuedValidations(int value) {
        maxQueuedValidations = value;
        return this;
    }

    JwtConfig build() {
        return new JwtConfig(jwks, publicKeyFile, hmacSecret, null, issuer, audience, algorithms, null, null, null, null, jwksTimeout,
                maxSessionLifetime, allowHttpJwks, maxQueuedValidations);
    }
}
