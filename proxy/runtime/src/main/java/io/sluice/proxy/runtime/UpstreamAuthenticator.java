package io.sluice.proxy.runtime;

import java.time.Duration;
import java.util.HashMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.TimeUnit;

import javax.security.auth.callback.Callback;
import javax.security.auth.callback.NameCallback;
import javax.security.auth.callback.PasswordCallback;
import javax.security.auth.callback.UnsupportedCallbackException;
import javax.security.sasl.Sasl;
import javax.security.sasl.SaslClient;
import javax.security.sasl.SaslException;

import org.apache.kafka.common.errors.SaslAuthenticationException;
import org.apache.kafka.common.message.RequestHeaderData;
import org.apache.kafka.common.message.SaslAuthenticateRequestData;
import org.apache.kafka.common.message.SaslAuthenticateResponseData;
import org.apache.kafka.common.message.SaslHandshakeRequestData;
import org.apache.kafka.common.message.SaslHandshakeResponseData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.security.scram.internals.ScramSaslClientProvider;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.sluice.proxy.codec.DecodedRequest;
import io.sluice.proxy.codec.DecodedResponse;
import io.sluice.proxy.codec.OutOfBand;
import io.sluice.proxy.config.SaslClientConfig;

/**
 * Authenticates a broker connection with the proxy's own SASL credentials before any client request is
 * sent on it (SaslHandshake v1, then SaslAuthenticate rounds, KIP-152). Sits in the broker pipeline just
 * before {@link BackendHandler}, and completes {@link #ready()} when the broker has accepted us.
 *
 * <p>When the broker limits the session (KIP-368, {@code connections.max.reauth.ms}), the connection is
 * closed shortly before the session would expire; clients reconnect through the proxy and get a freshly
 * authenticated broker connection. (Re-authenticating in place would need every client request paused
 * around the exchange.)</p>
 */
public final class UpstreamAuthenticator extends ChannelInboundHandlerAdapter {

    private static final Logger LOG = LoggerFactory.getLogger(UpstreamAuthenticator.class);
    private static final short HANDSHAKE_VERSION = 1;
    private static final short AUTHENTICATE_VERSION = 2;

    static {
        ScramSaslClientProvider.initialize();
    }

    private final ProxyConnection connection;
    private final SaslClientConfig config;
    private final CompletableFuture<Void> ready = new CompletableFuture<>();
    private final Duration timeout;
    private SaslClient sasl;

    /** @param timeout how long the whole exchange may take before the connection attempt fails */
    public UpstreamAuthenticator(ProxyConnection connection, SaslClientConfig config, Duration timeout) {
        this.connection = connection;
        this.config = config;
        this.timeout = timeout;
    }

    /** Completes when the broker accepted the credentials; fails with the broker's reason otherwise. */
    public CompletionStage<Void> ready() {
        return ready;
    }

    @Override
    public void channelActive(ChannelHandlerContext ctx) {
        ctx.fireChannelActive();
        var timer = ctx.executor().schedule(() -> fail(new SaslAuthenticationException(
                "the broker did not complete SASL authentication within " + timeout.toMillis() + " ms")), timeout.toMillis(), TimeUnit.MILLISECONDS);
        ready.whenComplete((ok, error) -> timer.cancel(false));
        try {
            sasl = Sasl.createSaslClient(new String[] { config.mechanism() }, null, "kafka", "sluice", new HashMap<>(), callbacks -> {
                for (Callback callback : callbacks) {
                    if (callback instanceof NameCallback name) {
                        name.setName(config.username());
                    } else if (callback instanceof PasswordCallback password) {
                        password.setPassword(config.password().resolve().toCharArray());
                    } else {
                        throw new UnsupportedCallbackException(callback);
                    }
                }
            });
            if (sasl == null) {
                throw new SaslException("no SASL client for " + config.mechanism());
            }
        } catch (SaslException e) {
            fail(e);
            return;
        }
        send(ctx, ApiKeys.SASL_HANDSHAKE, HANDSHAKE_VERSION, new SaslHandshakeRequestData().setMechanism(config.mechanism()))
                .thenAccept(response -> {
                    SaslHandshakeResponseData handshake = (SaslHandshakeResponseData) response;
                    if (handshake.errorCode() != 0) {
                        throw new SaslAuthenticationException("the broker does not accept SASL mechanism " + config.mechanism()
                                + "; it offers " + handshake.mechanisms());
                    }
                    authenticate(ctx, sasl.hasInitialResponse() ? evaluate(new byte[0]) : new byte[0]);
                })
                .exceptionally(this::fail);
    }

    private void authenticate(ChannelHandlerContext ctx, byte[] token) {
        send(ctx, ApiKeys.SASL_AUTHENTICATE, AUTHENTICATE_VERSION, new SaslAuthenticateRequestData().setAuthBytes(token))
                .thenAccept(response -> {
                    SaslAuthenticateResponseData auth = (SaslAuthenticateResponseData) response;
                    if (auth.errorCode() != 0) {
                        throw new SaslAuthenticationException("the broker rejected the proxy's " + config.mechanism() + " credentials for '"
                                + config.username() + "': " + auth.errorMessage());
                    }
                    byte[] next = sasl.isComplete() ? null : evaluate(auth.authBytes());
                    if (!sasl.isComplete()) {
                        authenticate(ctx, next);
                        return;
                    }
                    // A mechanism that completes on the broker's last message (SCRAM's server-final, which proves the
                    // broker knew our credentials too) has nothing more to send.
                    scheduleExpiry(ctx, auth.sessionLifetimeMs());
                    ready.complete(null);
                })
                .exceptionally(this::fail);
    }

    private byte[] evaluate(byte[] challenge) {
        try {
            byte[] response = sasl.evaluateChallenge(challenge == null ? new byte[0] : challenge);
            return response == null ? new byte[0] : response;
        } catch (SaslException e) {
            throw new SaslAuthenticationException("SASL " + config.mechanism() + " exchange with the broker failed: " + e.getMessage(), e);
        }
    }

    private void scheduleExpiry(ChannelHandlerContext ctx, long lifetimeMs) {
        if (lifetimeMs <= 0) {
            return;
        }
        long closeAfter = Math.max(1, lifetimeMs - Math.min(lifetimeMs / 10, 30_000));
        ctx.executor().schedule(() -> {
            LOG.info("{}: closing the broker connection before its SASL session expires ({} ms)", connection.descriptor(), lifetimeMs);
            connection.close("broker SASL session about to expire", null);
        }, closeAfter, TimeUnit.MILLISECONDS);
    }

    private CompletionStage<ApiMessage> send(ChannelHandlerContext ctx, ApiKeys apiKey, short version, ApiMessage body) {
        RequestHeaderData header = new RequestHeaderData().setRequestApiKey(apiKey.id).setRequestApiVersion(version).setClientId("sluice-proxy");
        CompletableFuture<ApiMessage> response = new CompletableFuture<>();
        DecodedRequest request = new DecodedRequest(header, body, true, new OutOfBand(this, response), null);
        header.setCorrelationId(connection.tracker().register(request, true, request.outOfBand()));
        ctx.channel().writeAndFlush(request);
        return response;
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
        if (msg instanceof DecodedResponse response && response.outOfBand() != null && response.outOfBand().origin() == this) {
            response.outOfBand().response().complete(response.body());
            return;
        }
        ctx.fireChannelRead(msg);
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) {
        ready.completeExceptionally(new SaslAuthenticationException("the broker closed the connection during SASL authentication"));
        ctx.fireChannelInactive();
    }

    private Void fail(Throwable e) {
        Throwable cause = e instanceof CompletionException && e.getCause() != null ? e.getCause() : e;
        ready.completeExceptionally(cause);
        if (sasl != null) {
            try {
                sasl.dispose();
            } catch (SaslException ignored) {
                // nothing left to release
            }
        }
        return null;
    }
}
