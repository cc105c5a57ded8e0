package io.sluice.auth;

import java.net.MalformedURLException;
import java.net.URI;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Set;

import com.fasterxml.jackson.annotation.JsonCreator;
import com.fasterxml.jackson.annotation.JsonProperty;

/**
 * How tokens are validated and where permissions are read from: the YAML section shared by the proxy's
 * JwtAuth filter and the WebSocket bridge. Exactly one key source is set: {@code jwks} (an http(s) URL or a
 * file), {@code publicKeyFile} (PEM) or an HMAC secret ({@code hmacSecret} or {@code hmacSecretFile}).
 *
 * @param jwks               a JWKS URL (fetched, cached, refreshed; an unknown key id triggers a refresh) or a JWKS file
 *                           path (re-read when it changes)
 * @param publicKeyFile      a PEM file with one RSA or EC public key or certificate
 * @param hmacSecret         a shared secret for HS256/384/512, at least 32 bytes
 * @param hmacSecretFile     the same, read from a file (trailing line breaks dropped)
 * @param issuer             the only accepted {@code iss}
 * @param audience           the {@code aud} a token must contain
 * @param algorithms         accepted JWS algorithms; default: every RSA and EC algorithm for public keys, HS* for secrets
 * @param clockSkew          tolerance for {@code exp}, {@code nbf} and {@code iat} against this host's clock
 * @param permissionsClaim   the claim holding the permissions object (docs/jwt.md)
 * @param jwksRefresh        how long a fetched JWKS is trusted before it is fetched again (refreshed ahead of time)
 * @param jwksMinRefreshInterval fetches caused by unknown key ids are limited to two per this interval
 * @param jwksTimeout        connect and read timeout for fetching the JWKS
 * @param maxSessionLifetime the longest session one token opens, whatever its {@code exp}: the session ends at
 *                           the earlier of {@code exp} + clock skew and authentication + this, and the client must
 *                           re-authenticate (KIP-368) to go on
 * @param allowHttpJwks      accept a {@code jwks} URL over plain {@code http://}; off by default because whoever
 *                           can change the answer on the way can sign tokens the proxy accepts
 * @param maxQueuedValidations token validations that may wait for one of the validation pool's two threads before
 *                           more are refused as busy (the proxy answers SASL_AUTHENTICATION_FAILED saying so, the bridge
 *                           closes with 1013 Try Again Later): every unauthenticated connection can ask for one, so
 *                           the queue is bounded rather than letting a flood make every later client wait behind it
 */
public record JwtConfig(String jwks,
                        String publicKeyFile,
                        String hmacSecret,
                        String hmacSecretFile,
                        String issuer,
                        String audience,
                        List<String> algorithms,
                        Duration clockSkew,
                        String permissionsClaim,
                        Duration jwksRefresh,
                        Duration jwksMinRefreshInterval,
                        Duration jwksTimeout,
                        Duration maxSessionLifetime,
                        boolean allowHttpJwks,
                        int maxQueuedValidations) {

    public static final Duration DEFAULT_CLOCK_SKEW = Duration.ofSeconds(30);
    public static final String DEFAULT_PERMISSIONS_CLAIM = "sluice";
    public static final Duration DEFAULT_JWKS_REFRESH = Duration.ofMinutes(5);
    public static final Duration DEFAULT_JWKS_MIN_REFRESH_INTERVAL = Duration.ofSeconds(30);
    public static final Duration DEFAULT_JWKS_TIMEOUT = Duration.ofSeconds(5);
    public static final Duration DEFAULT_MAX_SESSION_LIFETIME = Duration.ofHours(1);
    /**
     * A validation without a JWKS fetch takes well under a millisecond, so a full queue is drained in a fraction of a
     * second; more waiting than this means a flood (or a JWKS endpoint that stopped answering).
     */
    public static final int DEFAULT_MAX_QUEUED_VALIDATIONS = 256;

    /** Public-key algorithms offered by default. EdDSA is left out: nimbus needs an extra library to verify it. */
    static final List<String> PUBLIC_KEY_ALGORITHMS = List.of("RS256", "RS384", "RS512", "PS256", "PS384", "PS512", "ES256", "ES384", "ES512");
    static final List<String> HMAC_ALGORITHMS = List.of("HS256", "HS384", "HS512");

    public JwtConfig {
        algorithms = algorithms == null ? List.of() : List.copyOf(algorithms);
        clockSkew = clockSkew == null ? DEFAULT_CLOCK_SKEW : clockSkew;
        permissionsClaim = permissionsClaim == null ? DEFAULT_PERMISSIONS_CLAIM : permissionsClaim;
        jwksRefresh = jwksRefresh == null ? DEFAULT_JWKS_REFRESH : jwksRefresh;
        jwksMinRefreshInterval = jwksMinRefreshInterval == null ? DEFAULT_JWKS_MIN_REFRESH_INTERVAL : jwksMinRefreshInterval;
        jwksTimeout = jwksTimeout == null ? DEFAULT_JWKS_TIMEOUT : jwksTimeout;
        maxSessionLifetime = maxSessionLifetime == null ? DEFAULT_MAX_SESSION_LIFETIME : maxSessionLifetime;
    }

    /** A config with the default session cap that refuses {@code http://} JWKS URLs. */
    public JwtConfig(String jwks, String publicKeyFile, String hmacSecret, String hmacSecretFile, String issuer, String audience,
                     List<String> algorithms, Duration clockSkew, String permissionsClaim, Duration jwksRefresh,
                     Duration jwksMinRefreshInterval, Duration jwksTimeout) {
        this(jwks, publicKeyFile, hmacSecret, hmacSecretFile, issuer, audience, algorithms, clockSkew, permissionsClaim, jwksRefresh,
                jwksMinRefreshInterval, jwksTimeout, null, false, DEFAULT_MAX_QUEUED_VALIDATIONS);
    }

    @JsonCreator
    static JwtConfig fromYaml(@JsonProperty("jwks") String jwks,
                              @JsonProperty("publicKeyFile") String publicKeyFile,
                              @JsonProperty("hmacSecret") String hmacSecret,
                              @JsonProperty("hmacSecretFile") String hmacSecretFile,
                              @JsonProperty("issuer") String issuer,
                              @JsonProperty("audience") String audience,
                              @JsonProperty("algorithms") List<String> algorithms,
                              @JsonProperty("clockSkew") Duration clockSkew,
                              @JsonProperty("permissionsClaim") String permissionsClaim,
                              @JsonProperty("jwksRefresh") Duration jwksRefresh,
                              @JsonProperty("jwksMinRefreshInterval") Duration jwksMinRefreshInterval,
                              @JsonProperty("jwksTimeout") Duration jwksTimeout,
                              @JsonProperty("maxSessionLifetime") Duration maxSessionLifetime,
                              @JsonProperty("allowHttpJwks") Boolean allowHttpJwks,
                              @JsonProperty("maxQueuedValidations") Integer maxQueuedValidations) {
        return new JwtConfig(jwks, publicKeyFile, hmacSecret, hmacSecretFile, issuer, audience, algorithms, clockSkew,
                permissionsClaim, jwksRefresh, jwksMinRefreshInterval, jwksTimeout, maxSessionLifetime, Boolean.TRUE.equals(allowHttpJwks),
                maxQueuedValidations == null ? DEFAULT_MAX_QUEUED_VALIDATIONS : maxQueuedValidations);
    }

    /** Whether {@link #jwks} names a URL rather than a file. */
    public boolean jwksIsUrl() {
        String lower = jwks == null ? "" : jwks.toLowerCase(Locale.ROOT);
        return lower.startsWith("https://") || lower.startsWith("http://");
    }

    boolean usesHmac() {
        return hmacSecret != null || hmacSecretFile != null;
    }

    /** The algorithms in force: the configured ones, or the defaults for the key source. */
    public List<String> effectiveAlgorithms() {
        if (!algorithms.isEmpty()) {
            return algorithms;
        }
        return usesHmac() ? HMAC_ALGORITHMS : PUBLIC_KEY_ALGORITHMS;
    }

    /**
     * Every problem with this config, each starting with the field it concerns; empty when valid. Files are
     * not read here: {@link TokenValidator} reports those when it loads them.
     */
    public List<String> problems() {
        List<String> problems = new ArrayList<>();
        int sources = (jwks != null ? 1 : 0) + (publicKeyFile != null ? 1 : 0) + (usesHmac() ? 1 : 0);
        if (sources == 0) {
            problems.add("jwks: one key source is required: jwks (URL or file), publicKeyFile or hmacSecret/hmacSecretFile");
        } else if (sources > 1) {
            problems.add("jwks: set only one key source of jwks, publicKeyFile and hmacSecret/hmacSecretFile");
        }
        if (hmacSecret != null && hmacSecretFile != null) {
            problems.add("hmacSecret: set hmacSecret or hmacSecretFile, not both");
        }
        if (jwks != null && jwks.isBlank()) {
            problems.add("jwks: must not be empty");
        }
        if (jwksIsUrl()) {
            try {
                URI.create(jwks).toURL();
            } catch (IllegalArgumentException | MalformedURLException e) {
                problems.add("jwks: '" + jwks + "' is not a valid URL");
            }
            if (jwks.regionMatches(true, 0, "http://", 0, 7) && !allowHttpJwks) {
                problems.add("jwks: '" + jwks + "' is plain http: anyone on the way can replace the keys and sign tokens;"
                        + " use https, or set allowHttpJwks: true to accept that");
            }
        }
        if (issuer == null || issuer.isBlank()) {
            problems.add("issuer: is required (the exact iss of accepted tokens)");
        }
        if (audience == null || audience.isBlank()) {
            problems.add("audience: is required (the aud accepted tokens must contain)");
        }
        if (permissionsClaim.isBlank()) {
            problems.add("permissionsClaim: must not be empty");
        }
        Set<String> allowed = Set.copyOf(usesHmac() ? HMAC_ALGORITHMS : PUBLIC_KEY_ALGORITHMS);
        for (String alg : algorithms) {
            if (alg.equalsIgnoreCase("none")) {
                problems.add("algorithms: 'none' is never accepted: unsigned tokens prove nothing");
            } else if (!allowed.contains(alg)) {
                problems.add("algorithms: '" + alg + "' cannot be used with " + (usesHmac() ? "an HMAC secret" : "public keys")
                        + " (choose from " + String.join(", ", allowed.stream().sorted().toList()) + ")");
            }
        }
        if (clockSkew.isNegative()) {
            problems.add("clockSkew: must not be negative");
        }
        if (jwksRefresh.isZero() || jwksRefresh.isNegative()) {
            problems.add("jwksRefresh: must be positive");
        }
        if (jwksTimeout.isZero() || jwksTimeout.isNegative()) {
            problems.add("jwksTimeout: must be positive");
        }
        if (maxSessionLifetime.isZero() || maxSessionLifetime.isNegative()) {
            problems.add("maxSessionLifetime: must be positive");
        }
        if (maxQueuedValidations < 1) {
            problems.add("maxQueuedValidations: must be at least 1, not " + maxQueuedValidations);
        }
        return problems;
    }

    /** @throws IllegalArgumentException listing every problem, each naming its field */
    public JwtConfig validated() {
        List<String> problems = problems();
        if (!problems.isEmpty()) {
            throw new IllegalArgumentException(String.join("; ", problems));
        }
        return this;
    }

    /** Never the secret: the generated toString would put it in logs. */
    @Override
    public String toString() {
        return "JwtConfig[jwks=" + jwks + ", publicKeyFile=" + publicKeyFile + ", hmacSecret=" + (hmacSecret == null ? "null" : "******")
                + ", hmacSecretFile=" + hmacSecretFile + ", issuer=" + issuer + ", audience=" + audience + ", algorithms=" + algorithms
                + ", clockSkew=" + clockSkew + ", permissionsClaim=" + permissionsClaim + ", jwksRefresh=" + jwksRefresh
                + ", jwksMinRefreshInterval=" + jwksMinRefreshInterval + ", jwksTimeout=" + jwksTimeout
                + ", maxSessionLifetime=" + maxSessionLifetime + ", allowHttpJwks=" + allowHttpJwks
                + ", maxQueuedValidations=" + maxQueuedValidations + "]";
    }
}
