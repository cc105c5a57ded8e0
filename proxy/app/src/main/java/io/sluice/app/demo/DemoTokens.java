package io.sluice.app.demo;

import java.nio.charset.StandardCharsets;
import java.security.SecureRandom;
import java.time.Duration;
import java.time.Instant;
import java.util.Base64;
import java.util.Date;
import java.util.List;
import java.util.Map;

import com.nimbusds.jose.JOSEException;
import com.nimbusds.jose.JOSEObjectType;
import com.nimbusds.jose.JWSAlgorithm;
import com.nimbusds.jose.JWSHeader;
import com.nimbusds.jose.crypto.MACSigner;
import com.nimbusds.jwt.JWTClaimsSet;
import com.nimbusds.jwt.SignedJWT;

import io.sluice.auth.JwtConfig;

/**
 * DEMO ONLY: an issuer living inside the demo process. Its HMAC secret is random, made at start and never written
 * anywhere, and the tokens it mints may read the topic {@code scores}. A real deployment gets tokens from its
 * identity provider and validates them against its JWKS; nothing here is meant to be copied there.
 */
final class DemoTokens {

    static final String ISSUER = "sluice-demo";
    static final String AUDIENCE = "sluice-bridge";

    private final String secret;
    private final Duration lifetime;

    DemoTokens(Duration lifetime) {
        byte[] bytes = new byte[32];
        new SecureRandom().nextBytes(bytes);
        this.secret = Base64.getUrlEncoder().withoutPadding().encodeToString(bytes);
        this.lifetime = lifetime;
    }

    /** How the demo bridge validates these tokens: the same JwtConfig as any bridge, with the in-process secret. */
    JwtConfig config() {
        return new JwtConfig(null, null, secret, null, ISSUER, AUDIENCE, null, Duration.ZERO, null, null, null, null);
    }

    /** A token for a demo viewer: read every key of {@code scores}. */
    String mint() {
        Instant now = Instant.now();
        JWTClaimsSet claims = new JWTClaimsSet.Builder()
                .issuer(ISSUER)
                .audience(AUDIENCE)
                .subject("demo-viewer")
                .issueTime(Date.from(now))
                .expirationTime(Date.from(now.plus(lifetime)))
                .claim("sluice", Map.of("topics", Map.of(LiveScores.TOPIC, List.of("read"))))
                .build();
        try {
            SignedJWT jwt = new SignedJWT(new JWSHeader.Builder(JWSAlgorithm.HS256).type(JOSEObjectType.JWT).build(), claims);
            jwt.sign(new MACSigner(secret.getBytes(StandardCharsets.UTF_8)));
            return jwt.serialize();
        } catch (JOSEException e) {
            throw new IllegalStateException("cannot sign a demo token", e);
        }
    }
}
