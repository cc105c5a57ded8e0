package io.sluice.bridge.auth;

import java.util.concurrent.CompletionStage;

/**
 * Turns a client's token into a {@link Principal}. The bridge depends on nothing else for authentication, so the JWT
 * validation and permission model of {@code io.sluice.auth} plug in here through a thin adapter (see docs/bridge.md).
 *
 * <p>May complete on any thread; the bridge moves the result back to the connection's event loop. Must not block the
 * calling thread: a validator that fetches keys does so asynchronously.
 */
public interface Authenticator {

    /**
     * @return the principal, or a stage completed exceptionally with {@link AuthenticationException} when the token
     *         is invalid or expired (its message is sent to the client, so it must not contain secrets)
     */
    CompletionStage<Principal> authenticate(String token);
}
