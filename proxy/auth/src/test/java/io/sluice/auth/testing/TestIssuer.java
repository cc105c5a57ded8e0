package io.sluice.auth.testing;

import java.time.Duration;
import java.time.Instant;
import java.util.Date;
import java.util.Map;
import java.util.function.UnaryOperator;

import com.nimbusds.jose.JOSEException;
import com.nimbusds.jose.JOSEObjectType;
import com.nimbusds.jose.JWSAlgorithm;
import com.nimbusds.jose.JWSHeader;
import com.nimbusds.jose.JWSSigner;
import com.nimbusds.jose.crypto.ECDSASigner;
import com.nimbusds.jose.crypto.MACSigner;
import com.nimbusds.jose.crypto.RSASSASigner;
import com.nimbusds.jose.jwk.Curve;
import com.nimbusds.jose.jwk.ECKey;
import com.nimbusds.jose.jwk.JWK;
import com.nimbusds.jose.jwk.JWKSet;
import com.nimbusds.jose.jwk.RSAKey;
import com.nimbusds.jose.jwk.gen.ECKeyGenerator;
import com.nimbusds.jose.jwk.gen.RSAKeyGenerator;
import com.nimbusds.jwt.JWTClaimsSet;
import com.nimbusds.jwt.PlainJWT;
import com.nimbusds.jwt.SignedJWT;

/**
 * Mints tokens in tests the way an identity provider would: signed with an RSA, EC or HMAC key, with the
 * issuer, audience, subject and lifetime a test asks for.
 */
public final class TestIssuer {

    public static final String ISSUER = "https://idp.test";
    public static final String AUDIENCE = "sluice";

    private static RSAKey rsa;
    private static RSAKey otherRsa;
    private static ECKey ec;

    private final JWK key;
    private final JWSAlgorithm algorithm;

    private TestIssuer(JWK key, JWSAlgorithm algorithm) {
        this.key = key;
        this.algorithm = algorithm;
    }

    /** Signs with a 2048-bit RSA key, key id "rsa-1" (generated once per JVM). */
    public static synchronized TestIssuer rsa() {
        if (rsa == null) {
            rsa = rsaKey("rsa-1");
        }
        return new TestIssuer(rsa, JWSAlgorithm.RS256);
    }

    /** Another RSA key under the same key id "rsa-1": its signatures must not verify against {@link #rsa()}'s keys. */
    public static synchronized TestIssuer impostor() {
        if (otherRsa == null) {
            otherRsa = rsaKey("rsa-1");
        }
        return new TestIssuer(otherRsa, JWSAlgorithm.RS256);
    }

    /** Signs with a P-256 key, key id "ec-1". */
    public static synchronized TestIssuer ec() {
        if (ec == null) {
            try {
                ec = new ECKeyGenerator(Curve.P_256).keyID("ec-1").generate();
            } catch (JOSEException e) {
                throw new IllegalStateException(e);
            }
        }
        return new TestIssuer(ec, JWSAlgorithm.ES256);
    }

    /** A fresh RSA key with the given id, for rotation tests. */
    public static TestIssuer rsa(String keyId) {
        return new TestIssuer(rsaKey(keyId), JWSAlgorithm.RS256);
    }

    public static TestIssuer hmac(String secret) {
        return new TestIssuer(new com.nimbusds.jose.jwk.OctetSequenceKey.Builder(secret.getBytes(java.nio.charset.StandardCharsets.UTF_8)).build(),
                JWSAlgorithm.HS256);
    }

    private static RSAKey rsaKey(String keyId) {
        try {
            return new RSAKeyGenerator(2048).keyID(keyId).generate();
        } catch (JOSEException e) {
            throw new IllegalStateException(e);
        }
    }

    public JWK key() {
        return key;
    }

    /** The public half as a JWKS document. */
    public String jwks() {
        return new JWKSet(key.toPublicJWK()).toString();
    }

    /** PEM of the public key. */
    public String publicKeyPem() {
        try {
            byte[] der = key instanceof RSAKey r ? r.toPublicKey().getEncoded() : ((ECKey) key).toPublicKey().getEncoded();
            return "-----BEGIN PUBLIC KEY-----\n" + java.util.Base64.getMimeEncoder(64, "\n".getBytes()).encodeToString(der) + "\n-----END PUBLIC KEY-----\n";
        } catch (JOSEException e) {
            throw new IllegalStateException(e);
        }
    }

    /** Standard claims: the test issuer and audience, the subject, issued now, valid for {@code lifetime}. */
    public static JWTClaimsSet.Builder claims(String subject, Duration lifetime) {
        Instant now = Instant.now();
        return new JWTClaimsSet.Builder()
                .issuer(ISSUER)
                .audience(AUDIENCE)
                .subject(subject)
                .issueTime(Date.from(now))
                .expirationTime(Date.from(now.plus(lifetime)));
    }

    /** A token for {@code subject}, valid for {@code lifetime}, carrying {@code permissions} in the "sluice" claim. */
    public String token(String subject, Duration lifetime, Map<String, Object> permissions) {
        return sign(claims(subject, lifetime).claim("sluice", permissions).build());
    }

    public String token(String subject, Duration lifetime, UnaryOperator<JWTClaimsSet.Builder> change) {
        return sign(change.apply(claims(subject, lifetime)).build());
    }

    public String sign(JWTClaimsSet claims) {
        return sign(claims, algorithm);
    }

    public String sign(JWTClaimsSet claims, JWSAlgorithm alg) {
        try {
            JWSSigner signer = key instanceof RSAKey r ? new RSASSASigner(r)
                    : key instanceof ECKey e ? new ECDSASigner(e)
                    : new MACSigner(((com.nimbusds.jose.jwk.OctetSequenceKey) key).toByteArray());
            SignedJWT jwt = new SignedJWT(new JWSHeader.Builder(alg).keyID(key.getKeyID()).type(JOSEObjectType.JWT).build(), claims);
            jwt.sign(signer);
            return jwt.serialize();
        } catch (JOSEException e) {
            throw new IllegalStateException(e);
        }
    }

    /** The same claims without a signature: {@code alg: none}. */
    public static String unsigned(JWTClaimsSet claims) {
        return new PlainJWT(claims).serialize();
    }
}
