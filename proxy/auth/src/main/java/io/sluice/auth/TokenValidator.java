package io.sluice.auth;

import java.io.Closeable;
import java.io.IOException;
import java.security.Key;
import java.text.ParseException;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Date;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import com.nimbusds.jose.JOSEException;
import com.nimbusds.jose.JOSEObjectType;
import com.nimbusds.jose.JWSAlgorithm;
import com.nimbusds.jose.JWSHeader;
import com.nimbusds.jose.JWSVerifier;
import com.nimbusds.jose.KeySourceException;
import com.nimbusds.jose.crypto.factories.DefaultJWSVerifierFactory;
import com.nimbusds.jose.proc.JWSKeySelector;
import com.nimbusds.jose.proc.SecurityContext;
import com.nimbusds.jwt.EncryptedJWT;
import com.nimbusds.jwt.JWT;
import com.nimbusds.jwt.JWTClaimsSet;
import com.nimbusds.jwt.JWTParser;
import com.nimbusds.jwt.PlainJWT;
import com.nimbusds.jwt.SignedJWT;

import io.sluice.auth.TokenRejectedException.Reason;

/**
 * Validates signed JWTs (JWS) with nimbus-jose-jwt: the algorithm must be on the allow-list ({@code none}
 * never is), the signature must verify with a configured or published key, {@code exp} must be in the
 * future and {@code nbf}/{@code iat} not, each within the clock skew, {@code iss} must be the configured
 * issuer, {@code aud} must contain the configured audience, and {@code sub} must be present.
 *
 * <p>The signature is checked before any claim, so an unsigned or forged token learns nothing about which
 * claims would have been accepted. Thread-safe. {@link #validate} can block while a JWKS URL is fetched (the
 * first time, and when a token names an unknown key id): call it off event loops.</p>
 */
public final class TokenValidator implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(TokenValidator.class);

    /** Token types accepted in the {@code typ} header: none, plain JWTs and RFC 9068 access tokens. */
    private static final Set<JOSEObjectType> TYPES = Set.of(JOSEObjectType.JWT, new JOSEObjectType("at+jwt"),
            new JOSEObjectType("application/at+jwt"));

    private final JwtConfig config;
    private final Clock clock;
    private final Set<JWSAlgorithm> algorithms;
    private final JWSKeySelector<SecurityContext> keys;
    private final Closeable keyResources;
    private final DefaultJWSVerifierFactory verifiers = new DefaultJWSVerifierFactory();

    /**
     * @throws IllegalArgumentException when the config is invalid or a key file cannot be used, naming the field
     */
    public TokenValidator(JwtConfig config, Clock clock) {
        this.config = config.validated();
        this.clock = clock;
        Set<JWSAlgorithm> algs = new LinkedHashSet<>();
        config.effectiveAlgorithms().forEach(a -> algs.add(JWSAlgorithm.parse(a)));
        this.algorithms = Set.copyOf(algs);
        KeySelectors.Selector selector = KeySelectors.forConfig(config, algorithms);
        this.keys = selector.selector();
        this.keyResources = selector.resources();
    }

    public JwtConfig config() {
        return config;
    }

    /**
     * Checks the token and returns who it identifies.
     *
     * @throws TokenRejectedException saying what is wrong, in words fit for the client
     */
    public Identity validate(String token) throws TokenRejectedException {
        SignedJWT jwt = signedJwt(token);
        verifySignature(jwt);
        JWTClaimsSet claims;
        try {
            claims = jwt.getJWTClaimsSet();
        } catch (ParseException e) {
            throw new TokenRejectedException(Reason.MALFORMED, "the token's claims cannot be read: " + e.getMessage());
        }
        return verifyClaims(claims);
    }

    private static SignedJWT signedJwt(String token) throws TokenRejectedException {
        JWT jwt;
        try {
            jwt = JWTParser.parse(token == null ? "" : token.strip());
        } catch (ParseException e) {
            throw new TokenRejectedException(Reason.MALFORMED, "the token is not a JWT");
        }
        if (jwt instanceof PlainJWT) {
            throw new TokenRejectedException(Reason.UNSIGNED, "the token is unsigned (alg none), which is never accepted");
        }
        if (jwt instanceof EncryptedJWT) {
            throw new TokenRejectedException(Reason.UNSUPPORTED_ALGORITHM, "encrypted tokens (JWE) are not accepted; send a signed JWT");
        }
        return (SignedJWT) jwt;
    }

    private void verifySignature(SignedJWT jwt) throws TokenRejectedException {
        JWSHeader header = jwt.getHeader();
        JWSAlgorithm alg = header.getAlgorithm();
        if (!algorithms.contains(alg)) {
            throw new TokenRejectedException(Reason.UNSUPPORTED_ALGORITHM, "the token is signed with " + Untrusted.text(alg) + ", which is not accepted");
        }
        if (header.getType() != null && !TYPES.contains(header.getType())) {
            throw new TokenRejectedException(Reason.MALFORMED, "the token type '" + Untrusted.text(header.getType()) + "' is not accepted");
        }
        List<? extends Key> candidates;
        try {
            candidates = keys.selectJWSKeys(header, null);
        } catch (KeySourceException e) {
            LOG.warn("cannot get signing keys from {}: {}", config.jwks(), e.toString());
            throw new TokenRejectedException(Reason.KEYS_UNAVAILABLE, "the signing keys are unavailable right now; try again later");
        }
        if (candidates.isEmpty()) {
            throw new TokenRejectedException(Reason.UNKNOWN_KEY, "no known key matches the token"
                    + (header.getKeyID() != null ?  " (key id '" + Untrusted.text(header.getKeyID()) + "', " + Untrusted.text(alg) + ")" : " (" + Untrusted.text(alg) + ")"));
        }
        for (Key key : candidates) {
            try {
                JWSVerifier verifier = verifiers.createJWSVerifier(header, key);
                if (jwt.verify(verifier)) {
                    return;
                }
            } catch (JOSEException e) {
                LOG.debug("key {} cannot verify {}: {}", key.getAlgorithm(), Untrusted.text(alg), Untrusted.text(e.getMessage()));
            }
        }
        throw new TokenRejectedException(Reason.BAD_SIGNATURE, "the token's signature does not verify");
    }

    private Identity verifyClaims(JWTClaimsSet claims) throws TokenRejectedException {
        Instant now = clock.instant();
        Duration skew = config.clockSkew();
        Instant expiresAt = instant(claims, "exp");
        if (expiresAt == null) {
            throw new TokenRejectedException(Reason.MISSING_CLAIM, "the token has no exp claim; tokens must expire");
        }
        if (now.isAfter(expiresAt.plus(skew))) {
            throw new TokenRejectedException(Reason.EXPIRED, "the token expired at " + expiresAt);
        }
        Instant notBefore = instant(claims, "nbf");
        if (notBefore != null && now.plus(skew).isBefore(notBefore)) {
            throw new TokenRejectedException(Reason.NOT_YET_VALID, "the token is not valid before " + notBefore);
        }
        Instant issuedAt = instant(claims, "iat");
        if (issuedAt != null && now.plus(skew).isBefore(issuedAt)) {
            throw new TokenRejectedException(Reason.NOT_YET_VALID, "the token was issued in the future, at " + issuedAt);
        }
        String issuer = string(claims, "iss");
        if (issuer == null) {
            throw new TokenRejectedException(Reason.MISSING_CLAIM, "the token has no iss claim");
        }
        if (!issuer.equals(config.issuer())) {
            throw new TokenRejectedException(Reason.WRONG_ISSUER, "the token's issuer '" + Untrusted.text(issuer) + "' is not accepted");
        }
        List<String> audience = claims.getAudience();
        if (audience.isEmpty()) {
            throw new TokenRejectedException(Reason.MISSING_CLAIM, "the token has no aud claim");
        }
        if (!audience.contains(config.audience())) {
            throw new TokenRejectedException(Reason.WRONG_AUDIENCE, "the token is not meant for this service (audience " + Untrusted.text(audience) + ")");
        }
        String subject = string(claims, "sub");
        if (subject == null || subject.isBlank()) {
            throw new TokenRejectedException(Reason.MISSING_CLAIM, "the token has no sub claim");
        }
        if (Untrusted.hasControlCharacters(subject)) {
            // The subject becomes the principal's name in logs and in other filters: no line breaks or escapes in it.
            throw new TokenRejectedException(Reason.MALFORMED, "the token's sub claim contains control characters");
        }
        return new Identity(subject, issuer, audience, expiresAt, claims.toJSONObject());
    }

    private static Instant instant(JWTClaimsSet claims, String name) throws TokenRejectedException {
        try {
            Date date = claims.getDateClaim(name);
            return date == null ? null : date.toInstant();
        } catch (ParseException e) {
            throw new TokenRejectedException(Reason.MALFORMED, "the " + name + " claim is not a number of seconds");
        }
    }

    private static String string(JWTClaimsSet claims, String name) throws TokenRejectedException {
        try {
            return claims.getStringClaim(name);
        } catch (ParseException e) {
            throw new TokenRejectedException(Reason.MALFORMED, "the " + name + " claim is not a string");
        }
    }

    /** Stops the JWKS refresh threads, if any. */
    @Override
    public void close() {
        try {
            keyResources.close();
        } catch (IOException e) {
            LOG.debug("closing the key source failed: {}", e.toString());
        }
    }
}
