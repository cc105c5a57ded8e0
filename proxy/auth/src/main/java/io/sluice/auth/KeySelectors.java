package io.sluice.auth;

import java.io.Closeable;
import java.io.IOException;
import java.net.MalformedURLException;
import java.net.URI;
import java.net.URL;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.security.Key;
import java.security.PublicKey;
import java.security.interfaces.ECPublicKey;
import java.security.interfaces.RSAPublicKey;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ThreadFactory;

import javax.crypto.spec.SecretKeySpec;

import com.nimbusds.jose.JWSAlgorithm;
import com.nimbusds.jose.jwk.source.JWKSource;
import com.nimbusds.jose.jwk.source.JWKSourceBuilder;
import com.nimbusds.jose.proc.JWSKeySelector;
import com.nimbusds.jose.proc.JWSVerificationKeySelector;
import com.nimbusds.jose.proc.SecurityContext;
import com.nimbusds.jose.util.DefaultResourceRetriever;

/**
 * Turns the configured key source into a nimbus {@link JWSKeySelector}: the keys that may have signed a
 * token with a given header. Only keys for algorithms on the allow-list are ever returned.
 */
final class KeySelectors {

    /** A JWKS document larger than this is not a key set. */
    private static final int JWKS_SIZE_LIMIT = 1024 * 1024;
    private static final long REFRESH_AHEAD_MILLIS = 30_000;

    /** A selector and whatever must be released with it (the JWKS refresh threads). */
    record Selector(JWSKeySelector<SecurityContext> selector, Closeable resources) {
    }

    private KeySelectors() {
    }

    /** @throws IllegalArgumentException naming the field when a key file cannot be used */
    static Selector forConfig(JwtConfig config, Set<JWSAlgorithm> algorithms) {
        if (config.jwks() != null) {
            JWKSource<SecurityContext> source = config.jwksIsUrl() ? remote(config) : file(config.jwks(), "jwks");
            Closeable close = source instanceof Closeable c ? c : () -> { };
            return new Selector(new JWSVerificationKeySelector<>(algorithms, source), close);
        }
        Key key;
        if (config.publicKeyFile() != null) {
            key = publicKey(config.publicKeyFile());
        } else {
            key = hmacSecret(config);
        }
        return new Selector(staticKey(key, algorithms), () -> { });
    }

    private static JWKSource<SecurityContext> remote(JwtConfig config) {
        URL url;
        try {
            url = URI.create(config.jwks()).toURL();
        } catch (MalformedURLException | IllegalArgumentException e) {
            throw new IllegalArgumentException("jwks: '" + config.jwks() + "' is not a valid URL", e);
        }
        int timeout = (int) Math.min(Integer.MAX_VALUE, config.jwksTimeout().toMillis());
        long ttl = config.jwksRefresh().toMillis();
        ExecutorService refresher = Executors.newSingleThreadExecutor(daemon("sluice-jwks-refresh"));
        ScheduledExecutorService scheduler = Executors.newSingleThreadScheduledExecutor(daemon("sluice-jwks-schedule"));
        return JWKSourceBuilder.<SecurityContext>create(url, new DefaultResourceRetriever(timeout, timeout, JWKS_SIZE_LIMIT))
                .cache(ttl, timeout)
                // Refresh in the background before the cache expires, so no authentication waits for the fetch.
                .refreshAheadCache(Math.min(REFRESH_AHEAD_MILLIS, ttl / 2), null, refresher, true, scheduler, true)
                .rateLimited(config.jwksMinRefreshInterval().toMillis())
                .retrying(true)
                // Keep using the last keys while the identity provider is unreachable, rather than rejecting everyone.
                .outageTolerant(Math.max(ttl * 10, 3_600_000L))
                .build();
    }

    private static ThreadFactory daemon(String name) {
        return runnable -> {
            Thread t = new Thread(runnable, name);
            t.setDaemon(true);
            return t;
        };
    }

    private static JWKSource<SecurityContext> file(String path, String field) {
        try {
            return new FileJwkSource(Path.of(path));
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException(field + ": " + e.getMessage(), e);
        }
    }

    private static PublicKey publicKey(String path) {
        try {
            return PemPublicKey.parse(Files.readString(Path.of(path), StandardCharsets.US_ASCII));
        } catch (NoSuchFileException e) {
            throw new IllegalArgumentException("publicKeyFile: '" + path + "' does not exist", e);
        } catch (IOException | IllegalArgumentException e) {
            throw new IllegalArgumentException("publicKeyFile: '" + path + "' cannot be read: " + e.getMessage(), e);
        }
    }

    private static Key hmacSecret(JwtConfig config) {
        byte[] secret;
        if (config.hmacSecret() != null) {
            secret = config.hmacSecret().getBytes(StandardCharsets.UTF_8);
        } else {
            try {
                secret = Files.readString(Path.of(config.hmacSecretFile()), StandardCharsets.UTF_8)
                        .replaceFirst("[\\r\\n]+$", "").getBytes(StandardCharsets.UTF_8);
            } catch (NoSuchFileException e) {
                throw new IllegalArgumentException("hmacSecretFile: '" + config.hmacSecretFile() + "' does not exist", e);
            } catch (IOException e) {
                throw new IllegalArgumentException("hmacSecretFile: '" + config.hmacSecretFile() + "' cannot be read: " + e.getMessage(), e);
            }
        }
        if (secret.length < 32) {
            // HS256 is only as strong as its key; nimbus refuses shorter secrets too.
            throw new IllegalArgumentException((config.hmacSecret() != null ? "hmacSecret" : "hmacSecretFile")
                    + ": the secret must be at least 32 bytes (256 bits), it has " + secret.length);
        }
        return new SecretKeySpec(secret, "HmacSHA256");
    }

    /**
     * One configured key for every token whatever its key id (a PEM key or a secret has none), offered only
     * for allowed algorithms of its own family, so an RSA public key can never be used as an HMAC secret.
     */
    private static JWSKeySelector<SecurityContext> staticKey(Key key, Set<JWSAlgorithm> algorithms) {
        Set<JWSAlgorithm> family;
        if (key instanceof RSAPublicKey) {
            family = JWSAlgorithm.Family.RSA;
        } else if (key instanceof ECPublicKey) {
            family = JWSAlgorithm.Family.EC;
        } else {
            family = JWSAlgorithm.Family.HMAC_SHA;
        }
        List<Key> keys = List.of(key);
        return (header, context) -> algorithms.contains(header.getAlgorithm()) && family.contains(header.getAlgorithm()) ? keys : List.of();
    }
}
