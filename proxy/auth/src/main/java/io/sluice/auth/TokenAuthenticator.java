package io.sluice.auth;

import java.time.Clock;
import java.time.Instant;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The one entry point for token authentication, shared by the proxy's JwtAuth filter and the WebSocket
 * bridge: a bearer token in, a {@link Grant} (identity, permissions, session end) out, or a
 * {@link TokenRejectedException} saying why not.
 *
 * <p>Create one per configuration and share it; it is thread-safe. {@link #authenticateAsync} runs on the
 * authenticator's own small pool, because validating may wait for the JWKS URL; event loops must use it
 * rather than {@link #authenticate}. The pool's queue is bounded: a flood of authentication attempts (each
 * unauthenticated connection may send one) fails fast with {@link AuthenticatorBusyException} instead of
 * queueing without limit and making every later client wait behind it; its length is the config's
 * {@code maxQueuedValidations}.</p>
 */
public final class TokenAuthenticator implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(TokenAuthenticator.class);
    private static final AtomicInteger POOLS = new AtomicInteger();

    private final TokenValidator validator;
    private final JwtConfig config;
    private final Clock clock;
    private final ExecutorService pool;

    private TokenAuthenticator(TokenValidator validator, Clock clock, int maxQueuedValidations) {
        this.validator = validator;
        this.config = validator.config();
        this.clock = clock;
        int id = POOLS.incrementAndGet();
        AtomicInteger threads = new AtomicInteger();
        // Two threads: authentication is rare (per connection and per token refresh), but one slow JWKS fetch
        // should not hold up validations that need no fetch.
        this.pool = new ThreadPoolExecutor(2, 2, 60, TimeUnit.SECONDS, new ArrayBlockingQueue<>(maxQueuedValidations), r -> {
            Thread t = new Thread(r, "sluice-auth-" + id + "-" + threads.incrementAndGet());
            t.setDaemon(true);
            return t;
        });
    }

    /**
     * @throws IllegalArgumentException when the config is invalid or its key source unusable, each problem
     *                                  starting with the field it concerns
     */
    public static TokenAuthenticator create(JwtConfig config) {
        return create(config, Clock.systemUTC());
    }

    /** Validations beyond the config's {@link JwtConfig#maxQueuedValidations} waiting for a thread are refused as busy. */
    public static TokenAuthenticator create(JwtConfig config, Clock clock) {
        TokenValidator validator = new TokenValidator(config, clock);
        return new TokenAuthenticator(validator, clock, validator.config().maxQueuedValidations());
    }

    public JwtConfig config() {
        return config;
    }

    /** The clock sessions are timed with. */
    public Clock clock() {
        return clock;
    }

    /**
     * Validates the token and compiles its permissions. May block while keys are fetched.
     *
     * @throws TokenRejectedException with a message fit for the client
     */
    public Grant authenticate(String token) throws TokenRejectedException {
        Identity identity = validator.validate(token);
        Permissions permissions;
        try {
            permissions = Permissions.fromClaim(identity.claims().get(config.permissionsClaim()));
        } catch (IllegalArgumentException e) {
            throw new TokenRejectedException(TokenRejectedException.Reason.INVALID_PERMISSIONS,
                    "the " + config.permissionsClaim() + " claim is invalid: " + e.getMessage());
        }
        // A far-future exp must not mean a session for ever: cap it, and let the client re-authenticate (KIP-368).
        Instant tokenEnd = identity.expiresAt().plus(config.clockSkew());
        Instant cap = clock.instant().plus(config.maxSessionLifetime());
        return new Grant(identity, permissions, tokenEnd.isBefore(cap) ? tokenEnd : cap);
    }

    /**
     * {@link #authenticate} on the authenticator's pool. The future fails with a {@link TokenRejectedException}
     * (not wrapped) when the token is rejected.
     */
    public CompletableFuture<Grant> authenticateAsync(String token) {
        CompletableFuture<Grant> result = new CompletableFuture<>();
        try {
            pool.execute(() -> {
                try {
                    result.complete(authenticate(token));
                } catch (TokenRejectedException e) {
                    result.completeExceptionally(e);
                } catch (RuntimeException e) {
                    result.completeExceptionally(new CompletionException("token validation failed unexpectedly", e));
                }
            });
        } catch (RejectedExecutionException e) {
            result.completeExceptionally(pool.isShutdown() ? new IllegalStateException("the authenticator is closed", e)
                    : new AuthenticatorBusyException());
        }
        return result;
    }

    @Override
    public void close() {
        pool.shutdownNow();
        validator.close();
        LOG.debug("authenticator for issuer {} closed", config.issuer());
    }
}
