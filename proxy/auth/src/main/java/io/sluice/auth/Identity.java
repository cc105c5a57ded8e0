package io.sluice.auth;

import java.time.Instant;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * Who a validated token says the caller is.
 *
 * @param subject   the {@code sub} claim: the principal's name
 * @param issuer    the {@code iss} claim
 * @param audience  the {@code aud} claim
 * @param expiresAt the {@code exp} claim
 * @param claims    every claim, as parsed JSON (strings, numbers, booleans, lists, maps); immutable
 */
public record Identity(String subject, String issuer, List<String> audience, Instant expiresAt, Map<String, Object> claims) {

    public Identity {
        Objects.requireNonNull(subject, "subject");
        Objects.requireNonNull(expiresAt, "expiresAt");
        audience = List.copyOf(audience);
        claims = Collections.unmodifiableMap(new LinkedHashMap<>(claims));
    }
}
