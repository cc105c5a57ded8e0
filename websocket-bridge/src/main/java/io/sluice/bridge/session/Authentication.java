package io.sluice.bridge.session;

import java.net.SocketAddress;
import java.time.Instant;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.TimeUnit;

import io.netty.channel.EventLoop;
import io.netty.util.concurrent.ScheduledFuture;
import io.sluice.bridge.auth.AuthenticationException;
import io.sluice.bridge.auth.Principal;
import io.sluice.bridge.selection.FilterException;
import io.sluice.bridge.protocol.ClientRequest;
import io.sluice.bridge.protocol.CloseCodes;
import io.sluice.bridge.protocol.ErrorCodes;
import io.sluice.bridge.protocol.RequestRefusedException;
import io.sluice.bridge.protocol.ServerMessages;

/**
 * A session's token over its life: the deadline for {@code connect}, validation, the {@code expiring} warning, refresh
 * (same subject only), and the 4002 close when the token runs out. A validation the node is too busy for
 * ({@link AuthenticationException#busy}) closes a connecting client with 1013 and answers a refresh with {@code busy}.
 * The {@link Inbound} limit is lifted by a connect being validated. Event loop only; the authenticator's answers are
 * brought back onto it.
 */
final class Authentication {

    /** The refusal reason ({@link io.sluice.bridge.metrics.BridgeMetrics#REFUSALS}) of a validation the node was too busy for. */
    private static final String BUSY = "token_validation_busy";
    /** The refusal reason of a session over {@code connections.maxConnectionsPerSubject}. */
    private static final String SUBJECT_CONNECTIONS = "subject_connections";

    private final Session session;
    private final SessionServices services;
    private final EventLoop loop;
    private final Inbound inbound;
    private Principal principal;
    private boolean pending;
    private ScheduledFuture<?> connectDeadline;
    private ScheduledFuture<?> expiry;
    private ScheduledFuture<?> warning;
    // The subject whose place in SubjectConnections this session holds, or null.
    private String heldSubject;

    Authentication(Session session, SessionServices services, EventLoop loop, Inbound inbound) {
        this.session = session;
        this.services = services;
        this.loop = loop;
        this.inbound = inbound;
    }

    Principal principal() {
        return principal;
    }

    void awaitConnect() {
        connectDeadline = loop.schedule(() -> session.close(CloseCodes.AUTHENTICATION_FAILED, "no connect message in time"),
                services.auth().connectTimeout().toMillis(), TimeUnit.MILLISECONDS);
    }

    void connect(ClientRequest.Connect connect) throws RequestRefusedException {
        if (principal != null || pending) {
            throw new RequestRefusedException(ErrorCodes.ALREADY_CONNECTED, "already connected", connect.id());
        }
        pending = true;
        // Between two frames now: normal-sized messages from here on, but nothing more read until the token is accepted.
        inbound.connecting();
        validate(services, connect.token(), session.channel().remoteAddress()).thenAccept(verdict -> loop.execute(() -> {
            pending = false;
            if (session.isClosing()) {
                return;
            }
            if (verdict.busy()) {
                // Not the token's fault: the client reconnects with it after a backoff (1013), rather than asking for
                // a new token as after 4001. Closing frees the connection slot of a node that is overloaded already.
                session.close(CloseCodes.TRY_AGAIN_LATER, "the node is busy validating tokens; reconnect after a backoff");
                return;
            }
            if (verdict.refused() != null) {
                session.close(CloseCodes.AUTHENTICATION_FAILED, verdict.refused());
                return;
            }
            if (!admit(verdict.principal())) {
                // As a busy node: not the token's fault, another of the subject's sessions may end meanwhile.
                session.close(CloseCodes.TRY_AGAIN_LATER, tooManyForSubject());
                return;
            }
            connectDeadline.cancel(false);
            // Spent: not held for the session's life.
            connectDeadline = null;
            inbound.connected();
            accept(verdict.principal());
            session.control(ServerMessages.connected(connect.id(), services.nodeName(), principal.subject(), millis(principal.expiresAt())));
        }));
    }

    /**
     * Validates a token as a {@code connect} does, counting a busy refusal and a failed authentication; completes on the
     * authenticator's thread, never exceptionally. Shared by every transport, so that an SSE stream's token is refused
     * exactly when a WebSocket connect's would be.
     */
    static CompletableFuture<TokenVerdict> validate(SessionServices services, String token, SocketAddress client) {
        return services.authenticator().authenticate(token).handle((p, error) -> {
            if (busy(error)) {
                Refusals.refused(services, BUSY, client);
                return new TokenVerdict(null, true, null);
            }
            String refused = error != null ? reason(error) : expired(p) ? "token expired" : unusableRowFilters(services, p);
            if (refused != null) {
                services.metrics().authFailed();
                return new TokenVerdict(null, false, refused);
            }
            return new TokenVerdict(p, false, null);
        }).toCompletableFuture();
    }

    /**
     * Takes the session's place among its subject's ({@code connections.maxConnectionsPerSubject}), given back when
     * the session ends; false, counted and logged as refusal {@code subject_connections}, when the subject holds all.
     */
    boolean admit(Principal p) {
        if (heldSubject != null) {
            return true;
        }
        if (!services.subjects().acquire(p.subject())) {
            Refusals.refused(services, SUBJECT_CONNECTIONS, session.channel().remoteAddress());
            return false;
        }
        heldSubject = p.subject();
        return true;
    }

    String tooManyForSubject() {
        return "too many connections for this token's subject on this node (connections.maxConnectionsPerSubject "
                + services.subjects().max() + ")";
    }

    /** A principal to check a stream's subscriptions against before the stream starts; no timer runs yet. */
    void principalForChecks(Principal p) {
        principal = p;
    }

    /** The token was accepted (by a connect, or before an SSE stream started): its expiry and warning are scheduled. */
    void accept(Principal p) {
        principal = p;
        scheduleExpiry();
    }

    /** @param done run on the loop once the refresh is answered (or the session is closing) */
    void refresh(ClientRequest.Refresh refresh, Runnable done) {
        services.authenticator().authenticate(refresh.token()).whenComplete((p, error) -> loop.execute(() -> {
            done.run();
            if (session.isClosing()) {
                return;
            }
            if (busy(error)) {
                // The old token stays in force; the same refresh can be sent again after a backoff.
                Refusals.refused(services, BUSY, session.channel().remoteAddress());
                session.error(refresh.id(), ErrorCodes.BUSY, "the node is busy validating tokens; send the refresh again after a backoff");
                return;
            }
            String refused = error != null ? reason(error) : expired(p) ? "token expired" : unusableRowFilters(services, p);
            if (refused != null) {
                session.error(refresh.id(), ErrorCodes.INVALID_TOKEN, refused);
                return;
            }
            if (!p.subject().equals(principal.subject())) {
                session.error(refresh.id(), ErrorCodes.INVALID_TOKEN, "a refreshed token must name the same subject");
                return;
            }
            principal = p;
            scheduleExpiry();
            session.control(ServerMessages.refreshed(refresh.id(), millis(p.expiresAt())));
            session.permissionsChanged();
        }));
    }

    /** Why the token's row filters cannot be used (naming the spot), or null when they all compile. */
    private static String unusableRowFilters(SessionServices services, Principal p) {
        try {
            RowFilters.check(p, services.filters());
            return null;
        }
        catch (FilterException e) {
            return "the token's row filter is invalid: " + e.getMessage();
        }
    }

    private void scheduleExpiry() {
        cancel();
        Instant expiresAt = principal.expiresAt();
        if (expiresAt == null) {
            return;
        }
        long delay = expiresAt.toEpochMilli() - System.currentTimeMillis();
        expiry = loop.schedule(() -> {
            services.metrics().tokenExpired();
            session.close(CloseCodes.TOKEN_EXPIRED, "token expired");
        }, Math.max(0, delay), TimeUnit.MILLISECONDS);
        warning = loop.schedule(() -> session.control(ServerMessages.expiring(expiresAt.toEpochMilli())),
                Math.max(0, delay - services.auth().expiryWarning().toMillis()), TimeUnit.MILLISECONDS);
    }

    /** Stops every timer; the session is closing. */
    /** The session ends: its timers stop and its subject's place is given back. */
    void end() {
        cancel();
        if (heldSubject != null) {
            services.subjects().release(heldSubject);
            heldSubject = null;
        }
    }

    private void cancel() {
        for (ScheduledFuture<?> timer : new ScheduledFuture<?>[] {connectDeadline, expiry, warning}) {
            if (timer != null) {
                timer.cancel(false);
            }
        }
        connectDeadline = null;
        expiry = null;
        warning = null;
    }

    private static boolean expired(Principal p) {
        return p.expiresAt() != null && !p.expiresAt().isAfter(Instant.now());
    }

    private static Long millis(Instant instant) {
        return instant == null ? null : instant.toEpochMilli();
    }

    private static boolean busy(Throwable error) {
        return error != null && cause(error) instanceof AuthenticationException e && e.busy();
    }

    private static Throwable cause(Throwable error) {
        return error instanceof CompletionException && error.getCause() != null ? error.getCause() : error;
    }

    private static String reason(Throwable error) {
        Throwable cause = cause(error);
        // Only the authenticator's own messages are meant for clients; anything else may carry internals.
        return cause instanceof AuthenticationException ? cause.getMessage() : "authentication failed";
    }
}
