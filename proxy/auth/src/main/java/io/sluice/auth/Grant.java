package io.sluice.auth;

import java.time.Instant;
import java.util.Objects;

/**
 * What an accepted token gives its bearer: who they are, what they may do, and until when.
 *
 * @param identity    the validated claims
 * @param permissions compiled from the permissions claim
 * @param validUntil  the end of the session the token opens: its expiry plus the configured clock skew, or
 *                    authentication plus the configured maximum session lifetime if that is earlier; after it, the caller must present a fresh token or be disconnected
 */
public record Grant(Identity identity, Permissions permissions, Instant validUntil) {

    public Grant {
        Objects.requireNonNull(identity, "identity");
        Objects.requireNonNull(permissions, "permissions");
        Objects.requireNonNull(validUntil, "validUntil");
    }

    public String subject() {
        return identity.subject();
    }
}
