package io.sluice.bench.jwt;

import java.nio.charset.StandardCharsets;
import java.security.SecureRandom;
import java.time.Duration;
import java.time.Instant;
import java.util.Base64;
import java.util.Date;
import java.util.List;
import java.util.Map;

import com.nimbusds.jose.JOSEException;
import com.nimbusds.jose.JWSAlgorithm;
import com.nimbusds.jose.JWSHeader;
import com.nimbusds.jose.crypto.MACSigner;
import com.nimbusds.jwt.JWTClaimsSet;
import com.nimbusds.jwt.SignedJWT;

import io.sluice.bench.targets.TargetCredentials;

/**
 * Credentials for benchmark targets that run JwtAuth: a fresh HMAC secret per run (given to the proxy as
 * {@code SLUICE_BENCH_JWT_SECRET}) and HS256 tokens signed with it. The producers' and consumers' token grants
 * read, write and describe on {@code bench-*} topics and nothing else, so every request goes through the ordinary
 * permission checks. The benchmark creates its topics on the broker, so no token is an admin's.
 */
public final class JwtBenchCredentials implements TargetCredentials {

    public static final String SECRET_VARIABLE = "SLUICE_BENCH_JWT_SECRET";
    public static final String ISSUER = "sluice-bench";
    private static final Duration LIFETIME = Duration.ofHours(12);

    @Override
    public String filterType() {
        return "JwtAuth";
    }

    @Override
    public Issued issue() {
        String secret = newSecret();
        Map<String, Object> clientGrant = Map.of("topics", Map.of("bench-*", List.of("read", "write", "describe")));
        return new Issued(Map.of(SECRET_VARIABLE, secret),
                clientConfig(mint(secret, "bench-client", clientGrant)));
    }

    /** A fresh HMAC secret for one run (the proxy's {@link #SECRET_VARIABLE}). */
    public static String newSecret() {
        byte[] random = new byte[48];
        new SecureRandom().nextBytes(random);
        return Base64.getUrlEncoder().withoutPadding().encodeToString(random);
    }

    /** An HS256 token of {@link #ISSUER} (also its audience) for {@code subject}, its permissions claim {@code grant}. */
    public static String mint(String secret, String subject, Map<String, Object> grant) {
        Instant now = Instant.now();
        JWTClaimsSet claims = new JWTClaimsSet.Builder()
                .issuer(ISSUER).audience(ISSUER).subject(subject)
                .issueTime(Date.from(now)).expirationTime(Date.from(now.plus(LIFETIME)))
                .claim("sluice", grant)
                .build();
        SignedJWT jwt = new SignedJWT(new JWSHeader(JWSAlgorithm.HS256), claims);
        try {
            jwt.sign(new MACSigner(secret.getBytes(StandardCharsets.UTF_8)));
        } catch (JOSEException e) {
            throw new IllegalStateException("cannot sign the benchmark's token", e);
        }
        return jwt.serialize();
    }

    /** kafka-clients settings that log in with {@code token} over SASL_PLAINTEXT / OAUTHBEARER. */
    public static Map<String, Object> clientConfig(String token) {
        return Map.of(
                "security.protocol", "SASL_PLAINTEXT",
                "sasl.mechanism", "OAUTHBEARER",
                "sasl.login.callback.handler.class", StaticTokenLoginHandler.class.getName(),
                "sasl.jaas.config", "org.apache.kafka.common.security.oauthbearer.OAuthBearerLoginModule required token=\"" + token + "\";");
    }
}
