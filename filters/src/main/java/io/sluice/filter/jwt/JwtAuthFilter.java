package io.sluice.filter.jwt;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;

import org.apache.kafka.common.message.ApiVersionsResponseData;
import org.apache.kafka.common.message.RequestHeaderData;
import org.apache.kafka.common.message.ResponseHeaderData;
import org.apache.kafka.common.message.SaslAuthenticateRequestData;
import org.apache.kafka.common.message.SaslAuthenticateResponseData;
import org.apache.kafka.common.message.SaslHandshakeRequestData;
import org.apache.kafka.common.message.SaslHandshakeResponseData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.protocol.Errors;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import io.sluice.auth.TokenAuthenticator;
import io.sluice.auth.AuthenticatorBusyException;
import io.sluice.auth.Grant;
import io.sluice.auth.TokenRejectedException;
import io.sluice.auth.Untrusted;
import io.sluice.filter.jwt.enforce.Access;
import io.sluice.filter.jwt.enforce.Decision;
import io.sluice.filter.jwt.enforce.RequestRules;
import io.sluice.filter.jwt.sasl.OAuthBearerClientMessage;
import io.sluice.filter.records.RecordReaders;
import io.sluice.filter.rewrite.PendingRewrites;
import io.sluice.proxy.filter.AuthenticatedPrincipal;
import io.sluice.proxy.filter.FilterContext;
import io.sluice.proxy.filter.RequestFilter;
import io.sluice.proxy.filter.RequestFilterResult;
import io.sluice.proxy.filter.ResponseFilter;
import io.sluice.proxy.filter.ResponseFilterResult;

/**
 * One client connection's SASL/OAUTHBEARER session and the authorization of everything it sends.
 *
 * <pre>
 *   awaiting handshake --SaslHandshake(OAUTHBEARER)--> awaiting token --SaslAuthenticate(valid)--> authenticated
 *   authenticated --SaslHandshake, SaslAuthenticate (same subject, fresh token)--> authenticated (KIP-368)
 * </pre>
 *
 * Before authentication only ApiVersions and the SASL requests are answered; anything else, a failed
 * authentication, and any request after the session's end without re-authentication close the connection.
 * The session ends when the token does (plus the clock skew); the SaslAuthenticate response tells the
 * client so, and Kafka clients re-authenticate with a fresh token before then.
 */
final class JwtAuthFilter implements RequestFilter, ResponseFilter {

    private static final Logger LOG = LoggerFactory.getLogger(JwtAuthFilter.class);
    static final String MECHANISM = "OAUTHBEARER";

    private enum Stage { AWAITING_HANDSHAKE, AWAITING_TOKEN, AUTHENTICATED }

    private final TokenAuthenticator authenticator;
    private final AuthMetrics metrics;
    private final RecordReaders records;
    private final PendingRewrites rewrites = new PendingRewrites();
    private Stage stage = Stage.AWAITING_HANDSHAKE;
    private boolean reauthenticating;
    private Grant grant;
    private Access access;

    JwtAuthFilter(TokenAuthenticator authenticator, AuthMetrics metrics, RecordReaders records) {
        this.authenticator = authenticator;
        this.metrics = metrics;
        this.records = records;
    }

    @Override
    public boolean shouldHandleRequest(ApiKeys apiKey, short apiVersion) {
        // Every request: those before authentication must be refused, those after it authorized.
        return true;
    }

    @Override
    public boolean shouldHandleResponse(ApiKeys apiKey, short apiVersion) {
        return RequestRules.mayRewriteResponse(apiKey);
    }

    @Override
    public CompletionStage<RequestFilterResult> onRequest(ApiKeys apiKey, RequestHeaderData header, ApiMessage request, FilterContext context) {
        // Read now: the proxy replaces the correlation id with its own once the request is forwarded.
        int correlationId = header.correlationId();
        switch (apiKey) {
            case API_VERSIONS:
                rewrites.expect(correlationId, response -> {
                    ApiVersionsOffer.apply((ApiVersionsResponseData) response);
                    return CompletableFuture.completedFuture(null);
                });
                return context.forwardRequest(header, request);
            case SASL_HANDSHAKE:
                return handshake(header, (SaslHandshakeRequestData) request, context);
            case SASL_AUTHENTICATE:
                return authenticate(header, (SaslAuthenticateRequestData) request, context);
            default:
                break;
        }
        if (stage != Stage.AUTHENTICATED) {
            return close(context, apiKey + " before authenticating");
        }
        if (sessionEnded()) {
            return close(context, "session of " + grant.subject() + " ended at " + grant.validUntil() + " without re-authentication");
        }
        return RequestRules.decide(apiKey, header.requestApiVersion(), request, access, records, context)
                .thenApply(decision -> apply(decision, correlationId, header, request, context));
    }

    private RequestFilterResult apply(Decision decision, int correlationId, RequestHeaderData header, ApiMessage request, FilterContext context) {
        if (decision instanceof Decision.Forward forward) {
            if (forward.rewrite() != null) {
                rewrites.expect(correlationId, forward.rewrite());
            }
            return context.requestFilterResultBuilder().forward(header, request).build();
        }
        if (decision instanceof Decision.Deny deny) {
            metrics.denied(ApiKeys.forId(request.apiKey()).name);
            LOG.debug("{}: {} denied to {}: {}", context.channelDescriptor(), ApiKeys.forId(request.apiKey()), Untrusted.text(grant.subject()),
                    Untrusted.text(deny.error().getMessage()));
            try {
                return context.requestFilterResultBuilder().errorResponse(header, request, deny.error()).build();
            } catch (RuntimeException e) {
                // An API without a usable error response: refusing it by closing is the only safe answer.
                LOG.info("{}: closing: {} denied to {} and it has no error response", context.channelDescriptor(), ApiKeys.forId(request.apiKey()),
                        Untrusted.text(grant.subject()));
                return context.requestFilterResultBuilder().withCloseConnection().build();
            }
        }
        if (decision instanceof Decision.Respond respond) {
            return context.requestFilterResultBuilder().shortCircuitResponse(respond.response()).build();
        }
        metrics.denied(ApiKeys.forId(request.apiKey()).name);
        LOG.info("{}: closing: {}", context.channelDescriptor(), Untrusted.text(((Decision.Close) decision).why()));
        return context.requestFilterResultBuilder().withCloseConnection().build();
    }

    @Override
    public CompletionStage<ResponseFilterResult> onResponse(ApiKeys apiKey, short apiVersion, ResponseHeaderData header, ApiMessage response,
                                                            FilterContext context) {
        return rewrites.forward(header, response, context);
    }

    // ---- SASL ----

    private CompletionStage<RequestFilterResult> handshake(RequestHeaderData header, SaslHandshakeRequestData request, FilterContext context) {
        if (stage == Stage.AUTHENTICATED && sessionEnded()) {
            return close(context, "re-authentication of " + grant.subject() + " began after the session ended at " + grant.validUntil());
        }
        SaslHandshakeResponseData response = new SaslHandshakeResponseData().setMechanisms(List.of(MECHANISM));
        Errors error = Errors.NONE;
        if (header.requestApiVersion() < ApiVersionsOffer.SASL_HANDSHAKE_MIN) {
            error = Errors.UNSUPPORTED_VERSION;
        } else if (!MECHANISM.equals(request.mechanism())) {
            error = Errors.UNSUPPORTED_SASL_MECHANISM;
        } else if (stage == Stage.AWAITING_TOKEN || reauthenticating) {
            error = Errors.ILLEGAL_SASL_STATE;
        }
        if (error != Errors.NONE) {
            metrics.refused("handshake_" + error.name().toLowerCase(Locale.ROOT));
            LOG.info("{}: SASL handshake for mechanism '{}' refused: {}", context.channelDescriptor(), Untrusted.text(request.mechanism()), error);
            return context.requestFilterResultBuilder().shortCircuitResponse(response.setErrorCode(error.code())).withCloseConnection().completed();
        }
        if (stage == Stage.AUTHENTICATED) {
            reauthenticating = true;
        } else {
            stage = Stage.AWAITING_TOKEN;
        }
        return context.requestFilterResultBuilder().shortCircuitResponse(response).completed();
    }

    private CompletionStage<RequestFilterResult> authenticate(RequestHeaderData header, SaslAuthenticateRequestData request, FilterContext context) {
        if (stage != Stage.AWAITING_TOKEN && !reauthenticating) {
            return refuse(context, Errors.ILLEGAL_SASL_STATE, "SaslAuthenticate must follow a SaslHandshake");
        }
        OAuthBearerClientMessage message;
        try {
            message = OAuthBearerClientMessage.parse(request.authBytes());
        } catch (IllegalArgumentException e) {
            metrics.refused("invalid_message");
            return refuse(context, Errors.SASL_AUTHENTICATION_FAILED, "invalid OAUTHBEARER client message: " + e.getMessage());
        }
        short version = header.requestApiVersion();
        return authenticator.authenticateAsync(message.token())
                .handleAsync((accepted, error) -> error != null ? rejected(error, context)
                        : accepted(accepted, message, version, context), context.eventLoop());
    }

    private RequestFilterResult accepted(Grant accepted, OAuthBearerClientMessage message, short version, FilterContext context) {
        if (message.authorizationId() != null && !message.authorizationId().equals(accepted.subject())) {
            return refusal(context, Errors.SASL_AUTHENTICATION_FAILED, "the authorization id must be the token's subject");
        }
        if (reauthenticating && !accepted.subject().equals(grant.subject())) {
            return refusal(context, Errors.SASL_AUTHENTICATION_FAILED, "re-authentication cannot change the principal from '" + grant.subject() + "'");
        }
        boolean first = stage != Stage.AUTHENTICATED;
        grant = accepted;
        access = new Access(accepted.permissions());
        stage = Stage.AUTHENTICATED;
        reauthenticating = false;
        context.authenticated(new AuthenticatedPrincipal(accepted.subject(), MECHANISM, Map.of(
                JwtAuth.GRANT_ATTRIBUTE, accepted,
                JwtAuth.PERMISSIONS_ATTRIBUTE, accepted.permissions(),
                JwtAuth.IDENTITY_ATTRIBUTE, accepted.identity())));
        metrics.accepted();
        long lifetimeMs = Math.max(1, Duration.between(authenticator.clock().instant(), accepted.validUntil()).toMillis());
        LOG.debug("{}: {} {} until {}", context.channelDescriptor(), first ? "authenticated" : "re-authenticated", Untrusted.text(accepted.subject()),
                accepted.validUntil());
        SaslAuthenticateResponseData response = new SaslAuthenticateResponseData().setAuthBytes(new byte[0]);
        if (version >= 1) {
            // KIP-368: the client re-authenticates before this runs out; v0 clients cannot, and are closed at the end.
            response.setSessionLifetimeMs(lifetimeMs);
        }
        return context.requestFilterResultBuilder().shortCircuitResponse(response).build();
    }

    private RequestFilterResult rejected(Throwable error, FilterContext context) {
        Throwable cause = error instanceof CompletionException && error.getCause() != null ? error.getCause() : error;
        if (cause instanceof TokenRejectedException rejected) {
            metrics.rejected(rejected.reason());
            return refusal(context, Errors.SASL_AUTHENTICATION_FAILED, rejected.getMessage());
        }
        if (cause instanceof AuthenticatorBusyException busy) {
            metrics.refused("busy");
            return refusal(context, Errors.SASL_AUTHENTICATION_FAILED, "the proxy is busy: " + busy.getMessage());
        }
        LOG.warn("{}: token validation failed: {}", context.channelDescriptor(), cause.toString());
        return refusal(context, Errors.SASL_AUTHENTICATION_FAILED, "the token could not be validated");
    }

    private CompletionStage<RequestFilterResult> refuse(FilterContext context, Errors error, String why) {
        return CompletableFuture.completedFuture(refusal(context, error, why));
    }

    /** Answers the SaslAuthenticate with the error, then closes: Kafka clients report the message as the cause. */
    private RequestFilterResult refusal(FilterContext context, Errors error, String why) {
        LOG.info("{}: authentication failed{}: {}", context.channelDescriptor(),
                reauthenticating ? " on re-authentication of " + Untrusted.text(grant.subject()) : "", Untrusted.text(why, Untrusted.MAX_MESSAGE_CHARS));
        if (error != Errors.SASL_AUTHENTICATION_FAILED) {
            metrics.refused("authenticate_" + error.name().toLowerCase(Locale.ROOT));
        }
        SaslAuthenticateResponseData response = new SaslAuthenticateResponseData()
                .setErrorCode(error.code())
                .setErrorMessage("Authentication failed: " + why)
                .setAuthBytes(new byte[0]);
        return context.requestFilterResultBuilder().shortCircuitResponse(response).withCloseConnection().build();
    }

    // ---- session end ----

    private boolean sessionEnded() {
        Instant now = authenticator.clock().instant();
        if (now.isAfter(grant.validUntil())) {
            metrics.expired();
            return true;
        }
        return false;
    }

    private static CompletionStage<RequestFilterResult> close(FilterContext context, String why) {
        LOG.info("{}: closing: {}", context.channelDescriptor(), Untrusted.text(why, Untrusted.MAX_MESSAGE_CHARS));
        return context.requestFilterResultBuilder().withCloseConnection().completed();
    }
}
