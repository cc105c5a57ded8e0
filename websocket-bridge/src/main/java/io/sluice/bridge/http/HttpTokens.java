package io.sluice.bridge.http;

import java.time.Instant;
import java.util.function.BooleanSupplier;
import java.util.function.Consumer;

import io.netty.channel.Channel;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpVersion;
import io.sluice.bridge.auth.Principal;
import io.sluice.bridge.protocol.ErrorCodes;
import io.sluice.bridge.session.Session;
import io.sluice.bridge.session.SessionServices;

/**
 * One connection's (or HTTP/2 stream's) validation of the bearer tokens its HTTP requests carry. In: a request's
 * token; out, on the event loop: its principal, or the refusal as the request's answer (401 with
 * {@code WWW-Authenticate}, or 503 with Retry-After when the node is too busy to validate). The validation is the
 * WebSocket connect's ({@code Session.validate}: the same refusals, metrics and rate-limited logs); the token this
 * connection validated last is reused while it lasts, because a keep-alive client publishing repeatedly sends the same
 * one. A valid token is told to the {@link KeepAlive} (on HTTP/2 it ends the handshake). Used by {@link HttpRoutes}.
 */
final class HttpTokens {

    private final SessionServices services;
    private final Channel channel;
    private final KeepAlive keepAlive;
    private String validatedToken;
    private Principal validatedPrincipal;

    HttpTokens(SessionServices services, Channel channel, KeepAlive keepAlive) {
        this.services = services;
        this.channel = channel;
        this.keepAlive = keepAlive;
    }

    /**
     * @param version the request's, which a refusal is written in
     * @param wanted  whether the answer is still wanted when the verdict comes (the connection may be closing)
     * @param then    the principal of a valid token
     * @param refused the answer of a refused token
     */
    void check(String token, HttpVersion version, BooleanSupplier wanted, Consumer<Principal> then, Consumer<FullHttpResponse> refused) {
        if (token.equals(validatedToken) && !expired(validatedPrincipal)) {
            then.accept(validatedPrincipal);
            return;
        }
        Session.validate(services, token, channel).thenAccept(verdict -> channel.eventLoop().execute(() -> {
            if (!wanted.getAsBoolean() || !channel.isActive()) {
                return;
            }
            if (verdict.busy()) {
                refused.accept(Answers.error(version, HttpResponseStatus.SERVICE_UNAVAILABLE, ErrorCodes.BUSY,
                        "the node is busy validating tokens; retry after a backoff", Answers.DEFAULT_RETRY_MILLIS));
                return;
            }
            if (verdict.refused() != null) {
                FullHttpResponse response = Answers.error(version, HttpResponseStatus.UNAUTHORIZED, ErrorCodes.INVALID_TOKEN,
                        verdict.refused(), -1);
                response.headers().set(HttpHeaderNames.WWW_AUTHENTICATE, "Bearer error=\"invalid_token\"");
                refused.accept(response);
                return;
            }
            validatedToken = token;
            validatedPrincipal = verdict.principal();
            keepAlive.authenticated();
            then.accept(verdict.principal());
        }));
    }

    private static boolean expired(Principal principal) {
        return principal.expiresAt() != null && !principal.expiresAt().isAfter(Instant.now());
    }
}
