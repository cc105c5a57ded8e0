package io.sluice.auth;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.Date;
import java.util.List;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import com.nimbusds.jose.JWSAlgorithm;
import com.nimbusds.jose.jwk.JWKSet;
import com.nimbusds.jwt.JWTClaimsSet;

import io.sluice.auth.TokenRejectedException.Reason;
import io.sluice.auth.testing.JwksServer;
import io.sluice.auth.testing.TestIssuer;

import static io.sluice.auth.testing.TestIssuer.AUDIENCE;
import static io.sluice.auth.testing.TestIssuer.ISSUER;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class TokenValidatorTest {

    private static final Instant NOW = Instant.parse("2030-01-01T12:00:00Z");
    private static final Clock CLOCK = Clock.fixed(NOW, ZoneOffset.UTC);

    @TempDir
    Path dir;

    // ---- accepted ----

    @Test
    void acceptsRsaTokenFromJwksFileAndReturnsItsIdentity() throws Exception {
        TokenValidator validator = validator(jwksFile(TestIssuer.rsa()));

        Identity identity = validator.validate(TestIssuer.rsa().sign(claims().claim("team", "blue").build()));

        assertThat(identity.subject()).isEqualTo("alice");
        assertThat(identity.issuer()).isEqualTo(ISSUER);
        assertThat(identity.audience()).containsExactly(AUDIENCE);
        assertThat(identity.expiresAt()).isEqualTo(NOW.plusSeconds(300));
        assertThat(identity.claims()).containsEntry("team", "blue");
    }

    @Test
    void acceptsEcTokenFromJwksFile() throws Exception {
        TokenValidator validator = validator(jwksFile(TestIssuer.ec()));

        assertThat(validator.validate(TestIssuer.ec().sign(claims().build())).subject()).isEqualTo("alice");
    }

    @Test
    void acceptsTokensSignedWithRsaOrEcPemPublicKeys() throws Exception {
        for (TestIssuer issuer : List.of(TestIssuer.rsa(), TestIssuer.ec())) {
            Path pem = Files.writeString(dir.resolve("key-" + issuer.key().getKeyType() + ".pem"), issuer.publicKeyPem());
            TokenValidator validator = new TokenValidator(config(null).publicKeyFile(pem.toString()).build(), CLOCK);

            assertThat(validator.validate(issuer.sign(claims().build())).subject()).isEqualTo("alice");
        }
    }

    @Test
    void acceptsHmacTokenWithTheSharedSecret() throws Exception {
        String secret = "0123456789abcdef0123456789abcdef";
        TokenValidator validator = new TokenValidator(config(null).hmacSecret(secret).build(), CLOCK);

        assertThat(validator.validate(TestIssuer.hmac(secret).sign(claims().build())).subject()).isEqualTo("alice");
    }

    @Test
    void acceptsExpiredTokenWithinClockSkew() throws Exception {
        TokenValidator validator = validator(jwksFile(TestIssuer.rsa()));

        String token = TestIssuer.rsa().sign(claims().expirationTime(Date.from(NOW.minusSeconds(10))).build());

        assertThat(validator.validate(token).subject()).isEqualTo("alice");
    }

    @Test
    void acceptsAudienceListContainingOurAudience() throws Exception {
        TokenValidator validator = validator(jwksFile(TestIssuer.rsa()));

        String token = TestIssuer.rsa().sign(claims().audience(List.of("other", AUDIENCE)).build());

        assertThat(validator.validate(token).audience()).containsExactly("other", AUDIENCE);
    }

    // ---- rejected ----

    @Test
    void rejectsExpiredTokenBeyondClockSkew() throws Exception {
        String token = TestIssuer.rsa().sign(claims().expirationTime(Date.from(NOW.minusSeconds(31))).build());

        assertRejected(token, Reason.EXPIRED, "expired");
    }

    @Test
    void rejectsTokenNotYetValid() throws Exception {
        String token = TestIssuer.rsa().sign(claims().notBeforeTime(Date.from(NOW.plusSeconds(60))).build());

        assertRejected(token, Reason.NOT_YET_VALID, "not valid before");
    }

    @Test
    void rejectsTokenIssuedInTheFuture() throws Exception {
        String token = TestIssuer.rsa().sign(claims().issueTime(Date.from(NOW.plusSeconds(60))).build());

        assertRejected(token, Reason.NOT_YET_VALID, "issued in the future");
    }

    @Test
    void rejectsBadSignature() throws Exception {
        String forged = TestIssuer.impostor().sign(claims().build());

        assertRejected(forged, Reason.BAD_SIGNATURE, "signature does not verify");
    }

    @Test
    void rejectsTamperedClaims() throws Exception {
        String token = TestIssuer.rsa().sign(claims().build());
        String[] parts = token.split("\\.");
        String otherClaims = com.nimbusds.jose.util.Base64URL.encode(claims().subject("mallory").build().toString()).toString();

        assertRejected(parts[0] + "." + otherClaims + "." + parts[2], Reason.BAD_SIGNATURE, "signature");
    }

    @Test
    void rejectsUnsignedNoneAlgorithm() throws Exception {
        assertRejected(TestIssuer.unsigned(claims().build()), Reason.UNSIGNED, "alg none");
    }

    @Test
    void rejectsAlgorithmNotOnTheAllowList() throws Exception {
        TokenValidator validator = new TokenValidator(config(jwksFile(TestIssuer.rsa())).algorithms(List.of("RS512")).build(), CLOCK);

        assertThatThrownBy(() -> validator.validate(TestIssuer.rsa().sign(claims().build(), JWSAlgorithm.RS256)))
                .isInstanceOfSatisfying(TokenRejectedException.class, e -> assertThat(e.reason()).isEqualTo(Reason.UNSUPPORTED_ALGORITHM))
                .hasMessageContaining("RS256");
    }

    @Test
    void rejectsHmacTokenWhenKeysArePublicKeysEvenIfSignedWithThePublicKeyBytes() throws Exception {
        // The classic algorithm confusion: HS256 "signed" with the RSA public key as the secret.
        TestIssuer confused = TestIssuer.hmac(TestIssuer.rsa().publicKeyPem());

        assertRejected(confused.sign(claims().build()), Reason.UNSUPPORTED_ALGORITHM, "HS256");
    }

    @Test
    void rejectsUnknownKeyId() throws Exception {
        String token = TestIssuer.rsa("rsa-unknown").sign(claims().build());

        assertRejected(token, Reason.UNKNOWN_KEY, "rsa-unknown");
    }

    @Test
    void rejectsWrongIssuer() throws Exception {
        assertRejected(TestIssuer.rsa().sign(claims().issuer("https://evil.test").build()), Reason.WRONG_ISSUER, "https://evil.test");
    }

    @Test
    void rejectsWrongAudience() throws Exception {
        assertRejected(TestIssuer.rsa().sign(claims().audience("someone-else").build()), Reason.WRONG_AUDIENCE, "someone-else");
    }

    @Test
    void rejectsTokensMissingRequiredClaims() throws Exception {
        assertRejected(TestIssuer.rsa().sign(claims().subject(null).build()), Reason.MISSING_CLAIM, "sub");
        assertRejected(TestIssuer.rsa().sign(claims().expirationTime(null).build()), Reason.MISSING_CLAIM, "exp");
        assertRejected(TestIssuer.rsa().sign(claims().issuer(null).build()), Reason.MISSING_CLAIM, "iss");
        assertRejected(TestIssuer.rsa().sign(claims().audience((String) null).build()), Reason.MISSING_CLAIM, "aud");
    }

    @Test
    void rejectsSomethingThatIsNotAJwt() throws Exception {
        assertRejected("not-a-token", Reason.MALFORMED, "not a JWT");
    }

    @Test
    void rejectionMessagesNeverContainTheToken() throws Exception {
        String token = TestIssuer.rsa().sign(claims().expirationTime(Date.from(NOW.minusSeconds(3600))).build());
        TokenValidator validator = validator(jwksFile(TestIssuer.rsa()));

        assertThatThrownBy(() -> validator.validate(token)).message().doesNotContain(token.split("\\.")[2]);
    }

    // ---- key sources ----

    @Test
    void jwksUrlIsFetchedOnceAndCached() throws Exception {
        try (JwksServer jwks = new JwksServer(TestIssuer.rsa().jwks());
             TokenValidator validator = new TokenValidator(config(jwks.url()).build(), CLOCK)) {
            for (int i = 0; i < 5; i++) {
                validator.validate(TestIssuer.rsa().sign(claims().build()));
            }
            assertThat(jwks.fetches()).isEqualTo(1);
        }
    }

    @Test
    void jwksUrlIsFetchedAgainWhenATokenNamesANewKeyId() throws Exception {
        TestIssuer rotated = TestIssuer.rsa("rsa-2");
        try (JwksServer jwks = new JwksServer(TestIssuer.rsa().jwks());
             TokenValidator validator = new TokenValidator(config(jwks.url()).build(), CLOCK)) {
            validator.validate(TestIssuer.rsa().sign(claims().build()));

            jwks.publish(new JWKSet(List.of(TestIssuer.rsa().key().toPublicJWK(), rotated.key().toPublicJWK())).toString());

            assertThat(validator.validate(rotated.sign(claims().build())).subject()).isEqualTo("alice");
            assertThat(jwks.fetches()).isEqualTo(2);
        }
    }

    @Test
    void unreachableJwksUrlRejectsWithKeysUnavailable() throws Exception {
        String url;
        try (JwksServer gone = new JwksServer("{}")) {
            url = gone.url();
        }
        try (TokenValidator validator = new TokenValidator(config(url).jwksTimeout(Duration.ofMillis(500)).build(), CLOCK)) {
            assertThatThrownBy(() -> validator.validate(TestIssuer.rsa().sign(claims().build())))
                    .isInstanceOfSatisfying(TokenRejectedException.class, e -> assertThat(e.reason()).isEqualTo(Reason.KEYS_UNAVAILABLE));
        }
    }

    @Test
    void jwksFileIsReadAgainWhenItChanges() throws Exception {
        Path file = Path.of(jwksFile(TestIssuer.rsa()));
        TokenValidator validator = validator(file.toString());
        TestIssuer rotated = TestIssuer.rsa("rsa-2");
        String rotatedToken = rotated.sign(claims().build());
        assertThatThrownBy(() -> validator.validate(rotatedToken)).isInstanceOf(TokenRejectedException.class);

        Files.writeString(file, rotated.jwks());
        Files.setLastModifiedTime(file, FileTime.from(Instant.now().plusSeconds(5)));

        assertThat(validator.validate(rotatedToken).subject()).isEqualTo("alice");
    }

    // ---- configuration ----

    @Test
    void configNamesEveryProblemWithItsField() {
        JwtConfig bad = new JwtConfig(null, null, null, null, null, " ", List.of("none", "HS256"), Duration.ofSeconds(-1),
                null, null, null, null);

        assertThat(bad.problems()).anyMatch(p -> p.startsWith("jwks: one key source is required"))
                .anyMatch(p -> p.startsWith("issuer: is required"))
                .anyMatch(p -> p.startsWith("audience: is required"))
                .anyMatch(p -> p.startsWith("algorithms: 'none' is never accepted"))
                .anyMatch(p -> p.startsWith("algorithms: 'HS256' cannot be used with public keys"))
                .anyMatch(p -> p.startsWith("clockSkew:"));
    }

    @Test
    void configRejectsShortHmacSecretAndMissingFiles() {
        assertThatThrownBy(() -> new TokenValidator(config(null).hmacSecret("short").build(), CLOCK))
                .hasMessageStartingWith("hmacSecret: the secret must be at least 32 bytes");
        assertThatThrownBy(() -> new TokenValidator(config(dir.resolve("missing.json").toString()).build(), CLOCK))
                .hasMessageStartingWith("jwks: ").hasMessageContaining("does not exist");
        assertThatThrownBy(() -> new TokenValidator(config(null).publicKeyFile(dir.resolve("missing.pem").toString()).build(), CLOCK))
                .hasMessageStartingWith("publicKeyFile: ").hasMessageContaining("does not exist");
    }

    @Test
    void configToStringHidesTheSecret() {
        assertThat(config(null).hmacSecret("0123456789abcdef0123456789abcdef").build().toString()).doesNotContain("0123456789abcdef");
    }

    // ---- helpers ----

    private static JWTClaimsSet.Builder claims() {
        return new JWTClaimsSet.Builder()
                .issuer(ISSUER)
                .audience(AUDIENCE)
                .subject("alice")
                .issueTime(Date.from(NOW.minusSeconds(5)))
                .expirationTime(Date.from(NOW.plusSeconds(300)));
    }

    private void assertRejected(String token, Reason reason, String messagePart) throws Exception {
        TokenValidator validator = validator(jwksFile(TestIssuer.rsa()));
        assertThatThrownBy(() -> validator.validate(token))
                .isInstanceOfSatisfying(TokenRejectedException.class, e -> assertThat(e.reason()).isEqualTo(reason))
                .hasMessageContaining(messagePart);
    }

    private String jwksFile(TestIssuer issuer) throws Exception {
        Path file = Files.createTempFile(dir, "jwks", ".json");
        Files.writeString(file, issuer.jwks());
        return file.toString();
    }

    private static TokenValidator validator(String jwks) {
        return new TokenValidator(config(jwks).build(), CLOCK);
    }

    @Test
    void plainHttpJwksUrlIsRefusedUnlessExplicitlyAllowed() {
        JwtConfig http = TestJwtConfig.jwks("http://idp.example/jwks.json", ISSUER, AUDIENCE).build();

        assertThat(http.problems()).singleElement().satisfies(p -> assertThat(p).startsWith("jwks: ").contains("plain http", "allowHttpJwks"));
        assertThatThrownBy(() -> new TokenValidator(http, CLOCK)).isInstanceOf(IllegalArgumentException.class).hasMessageContaining("allowHttpJwks");
        assertThat(TestJwtConfig.jwks("HTTP://idp.example/jwks.json", ISSUER, AUDIENCE).build().problems()).hasSize(1);
        assertThat(TestJwtConfig.jwks("http://idp.example/jwks.json", ISSUER, AUDIENCE).allowHttpJwks(true).build().problems()).isEmpty();
        assertThat(TestJwtConfig.jwks("https://idp.example/jwks.json", ISSUER, AUDIENCE).build().problems()).isEmpty();
    }

    @Test
    void maxSessionLifetimeMustBePositive() {
        TestJwtConfig config = TestJwtConfig.jwks("https://idp.example/jwks.json", ISSUER, AUDIENCE);

        assertThat(config.build().maxSessionLifetime()).isEqualTo(JwtConfig.DEFAULT_MAX_SESSION_LIFETIME);
        assertThat(config.maxSessionLifetime(Duration.ZERO).build().problems()).containsExactly("maxSessionLifetime: must be positive");
    }

    @Test
    void untrustedTextEscapesControlAndLineSeparatorCharactersAndIsBounded() {
        assertThat(Untrusted.text("plain")).isEqualTo("plain");
        assertThat(Untrusted.text("a\r\nb\u001b[31m\u2028\u202e")).isEqualTo("a\\u000d\\u000ab\\u001b[31m\\u2028\\u202e");
        assertThat(Untrusted.text("y".repeat(500))).startsWith("y".repeat(Untrusted.MAX_CHARS)).endsWith("...(300 more chars)");
        assertThat(Untrusted.text(null)).isEqualTo("null");
    }

    @Test
    void rejectionMessagesCarryNoControlCharactersAndAreBounded() throws Exception {
        TokenValidator validator = validator(jwksFile(TestIssuer.rsa()));
        String issuer = "https://evil\r\nforged " + "x".repeat(10_000);

        assertThatThrownBy(() -> validator.validate(TestIssuer.rsa().sign(claims().issuer(issuer).build())))
                .isInstanceOf(TokenRejectedException.class)
                .satisfies(e -> assertThat(e.getMessage()).doesNotContain("\r", "\n").contains("evil\\u000d\\u000aforged").hasSizeLessThan(1_000));
    }

    private static TestJwtConfig config(String jwks) {
        // The test JWKS server is plain http on loopback.
        return TestJwtConfig.jwks(jwks, ISSUER, AUDIENCE).allowHttpJwks(true);
    }
}
