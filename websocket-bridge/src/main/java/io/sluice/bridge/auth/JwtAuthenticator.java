package io.sluice.bridge.auth;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import io.sluice.auth.AuthenticatorBusyException;
import io.sluice.auth.JwtConfig;
import io.sluice.auth.TokenAuthenticator;
import io.sluice.auth.TokenRejectedException;
import io.sluice.bridge.config.BridgeConfig;
import io.sluice.config.ConfigException;

/**
 * The bridge's {@link Authenticator} over the shared {@link TokenAuthenticator}: the same token validation
 * and permission model as the proxy's JwtAuth filter, so a token means the same in both. Validation runs on the shared
 * authenticator's own pool (it may fetch a JWKS), never on the event loop.
 *
 * <p>Clients see only {@link TokenRejectedException} messages, which say what is wrong and never contain the token;
 * a validation refused because the pool's queue ({@code auth.jwt.maxQueuedValidations}) is full is a
 * {@link AuthenticationException#busy} (try again later); any other failure is logged here and reported to the client
 * as a bare "authentication failed".</p>
 */
public final class JwtAuthenticator implements Authenticator, AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(JwtAuthenticator.class);

    private final TokenAuthenticator tokens;

    public JwtAuthenticator(TokenAuthenticator tokens) {
        this.tokens = tokens;
    }

    /**
     * Validations beyond the config's {@code maxQueuedValidations} waiting for a thread are refused as busy.
     *
     * @throws IllegalArgumentException when the config or its key source is unusable, naming the field
     */
    public static JwtAuthenticator create(JwtConfig config) {
        return new JwtAuthenticator(TokenAuthenticator.create(config));
    }

    /** Every client authenticates with a JWT; a node without {@code auth.jwt} would serve anyone, so it does not start. */
    public static JwtAuthenticator forBridge(BridgeConfig config) {
        if (config.auth().jwt() == null) {
            throw new ConfigException("auth.jwt: is required (the bridge authenticates every client with a JWT)");
        }
        try {
            return create(config.auth().jwt());
        } catch (IllegalArgumentException e) {
            // Key files are read here, after the config was validated; say which section they belong to.
            throw new ConfigException("auth.jwt." + e.getMessage());
        }
    }

    @Override
    public CompletionStage<Principal> authenticate(String token) {
        CompletableFuture<Principal> principal = new CompletableFuture<>();
        tokens.authenticateAsync(token).whenComplete((grant, error) -> {
            if (error == null) {
                principal.complete(new GrantPrincipal(grant));
            } else {
                principal.completeExceptionally(clientSafe(error));
            }
        });
        return principal;
    }

    private static AuthenticationException clientSafe(Throwable error) {
        Throwable cause = error instanceof CompletionException && error.getCause() != null ? error.getCause() : error;
        if (cause instanceof TokenRejectedException rejected) {
            return new AuthenticationException(rejected.getMessage());
        }
        if (cause instanceof AuthenticatorBusyException busy) {
            // Load, not an error of ours or the client's: a WARN with a stack per refusal would flood the log
            // exactly when the node is busiest.
            return AuthenticationException.busy(busy.getMessage());
        }
        LOG.warn("token validation failed unexpectedly", cause);
        return new AuthenticationException("authentication failed");
    }

    /** Stops the validation pool and any JWKS refresh. */
    @Override
    public void close() {
        tokens.close();
    }
}
