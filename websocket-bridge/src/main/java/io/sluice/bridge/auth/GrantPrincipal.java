package io.sluice.bridge.auth;

import java.nio.charset.StandardCharsets;
import java.time.Instant;

import io.sluice.auth.Grant;

/**
 * A {@link Principal} backed by an accepted token's {@link Grant}. Endpoint keys are text; they are checked as their
 * UTF-8 bytes, exactly as the proxy checks the record keys they name.
 */
record GrantPrincipal(Grant grant) implements Principal {

    @Override
    public String subject() {
        return grant.subject();
    }

    /** The end of the session the token opens: its {@code exp} plus the configured clock skew, as in the proxy. */
    @Override
    public Instant expiresAt() {
        return grant.validUntil();
    }

    @Override
    public boolean canSubscribe(String topic, String key) {
        return grant.permissions().canReadKey(topic, key.getBytes(StandardCharsets.UTF_8));
    }

    @Override
    public boolean canSubscribeAll(String topic, String keyPrefix) {
        return grant.permissions().canReadKeysWithPrefix(topic, keyPrefix);
    }

    @Override
    public boolean canPublish(String topic, String key) {
        return grant.permissions().canWriteKey(topic, key.getBytes(StandardCharsets.UTF_8));
    }
}
