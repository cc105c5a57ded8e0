package io.sluice.proxy.filter;

import java.util.Map;
import java.util.Objects;
import java.util.Optional;

/**
 * Who the client is, as established by an authenticating filter, with whatever that filter learned about
 * them (claims, permissions) for later filters to use.
 *
 * @param name       the principal's name, e.g. a JWT subject
 * @param mechanism  how it was established, e.g. OAUTHBEARER
 * @param attributes typed details keyed by name; immutable
 */
public record AuthenticatedPrincipal(String name, String mechanism, Map<String, Object> attributes) {

    public AuthenticatedPrincipal {
        Objects.requireNonNull(name, "name");
        Objects.requireNonNull(mechanism, "mechanism");
        attributes = Map.copyOf(attributes);
    }

    /** The attribute of that name if present and of that type. */
    public <T> Optional<T> attribute(String key, Class<T> type) {
        Object value = attributes.get(key);
        return type.isInstance(value) ? Optional.of(type.cast(value)) : Optional.empty();
    }
}
