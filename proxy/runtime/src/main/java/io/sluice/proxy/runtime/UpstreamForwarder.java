package io.sluice.proxy.runtime;

import java.util.ArrayDeque;
import java.util.List;
import java.util.Optional;

import org.apache.kafka.common.message.ApiVersionsResponseData;
import org.apache.kafka.common.message.ResponseHeaderData;
import org.apache.kafka.common.protocol.ApiKeys;

import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.handler.codec.DecoderException;
import io.netty.util.ReferenceCountUtil;
import io.sluice.proxy.codec.AttachedHook;
import io.sluice.proxy.codec.DecodedRequest;
import io.sluice.proxy.codec.DecodedResponse;
import io.sluice.proxy.codec.OpaqueRequest;
import io.sluice.proxy.codec.OutOfBand;
import io.sluice.proxy.codec.RequestFrame;

/**
 * The tail of the client pipeline: sends requests that came through every filter to the broker under the
 * proxy's own correlation ids, and is where broker responses re-enter the client pipeline (see
 * {@link BackendHandler}). Opens the broker connection when the client connects, or, for a client that
 * has yet to authenticate, when the first request has to go to the broker, so that a client which never
 * authenticates costs no broker connection unless it asks for one (ApiVersions, which the broker answers).
 * Client reads stay off while the connection is being opened; requests that arrived before it is up wait
 * here, as many as an unauthenticated client may queue.
 */
final class UpstreamForwarder extends ChannelInboundHandlerAdapter {

    private final ProxyConnection connection;
    private final UpstreamDialer dialer;
    private final ArrayDeque<RequestFrame> waitingForBroker = new ArrayDeque<>();

    UpstreamForwarder(ProxyConnection connection, UpstreamDialer dialer) {
        this.connection = connection;
        this.dialer = dialer;
    }

    @Override
    public void handlerAdded(ChannelHandlerContext ctx) {
        connection.forwarderContext(ctx);
    }

    @Override
    public void channelActive(ChannelHandlerContext ctx) {
        connection.metrics().connectionOpened();
        if (connection.awaitingAuthentication()) {
            connection.updateReads();
        } else {
            dial(ctx);
        }
        ctx.fireChannelActive();
    }

    private void dial(ChannelHandlerContext ctx) {
        connection.dialing();
        dialer.dial(connection).whenComplete((channel, error) -> ctx.executor().execute(() -> {
            if (error != null) {
                connection.metrics().upstreamConnectFailed();
                connection.closeForBroker("cannot reach the broker", error);
                releaseWaiting();
            } else if (!ctx.channel().isActive() || connection.isClosing()) {
                channel.close();
                releaseWaiting();
            } else {
                connection.backendConnected(channel);
                RequestFrame request;
                while ((request = waitingForBroker.pollFirst()) != null) {
                    forward(channel, request);
                }
                channel.flush();
            }
        }));
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
        if (!(msg instanceof RequestFrame request)) {
            ReferenceCountUtil.release(msg);
            return;
        }
        if (connection.isClosing()) {
            request.release();
            return;
        }
        Channel backend = connection.backend();
        if (backend == null && connection.awaitingAuthentication() && answeredFromCache(ctx, request)) {
            return;
        }
        if (backend == null) {
            // The request that starts the dial is the one in progress; only those after it queue behind it, so that
            // maxQueuedRequests: 0 still lets a client that never pipelines reach the broker.
            if (!waitingForBroker.isEmpty() && !connection.mayQueueRequest(waitingForBroker.size() - 1)) {
                request.release();
                return;
            }
            waitingForBroker.addLast(request);
            if (!connection.isDialing()) {
                dial(ctx);
            }
            return;
        }
        forward(backend, request);
    }

    /**
     * Answers an unauthenticated client's ApiVersions from the cluster's cached broker answer, so that it costs no
     * broker connection; the answer goes back through every filter, as a broker's would.
     *
     * @return false when the request is not ApiVersions or nothing is cached yet (the broker is asked)
     */
    private boolean answeredFromCache(ChannelHandlerContext ctx, RequestFrame request) {
        if (request.apiKey() != ApiKeys.API_VERSIONS) {
            return false;
        }
        Optional<ApiVersionsResponseData> cached = connection.apiVersions().answer(request.apiVersion());
        if (cached.isEmpty()) {
            return false;
        }
        List<AttachedHook> hooks = request instanceof DecodedRequest decoded ? decoded.responseHooks() : List.of();
        ResponseHeaderData header = new ResponseHeaderData().setCorrelationId(request.correlationId());
        DecodedResponse response = new DecodedResponse(ApiKeys.API_VERSIONS, request.apiVersion(), header, cached.get(), null, null, hooks);
        request.release();
        ctx.writeAndFlush(response, ctx.voidPromise());
        return true;
    }

    private void forward(Channel backend, RequestFrame request) {
        OutOfBand outOfBand = request instanceof DecodedRequest decoded ? decoded.outOfBand() : null;
        ApiKeys apiKey = request.apiKey();
        boolean decodeResponse = connection.decodePolicy().decodeResponse(apiKey, request.apiVersion());
        boolean onlyForLeaderHints = decodeResponse && connection.decodePolicy().decodeResponseOnlyForLeaderHints(apiKey, request.apiVersion());
        int upstreamId = connection.tracker().register(request, decodeResponse, onlyForLeaderHints, outOfBand);
        if (request instanceof OpaqueRequest opaque) {
            backend.write(opaque.takeFrame(upstreamId), backend.voidPromise());
        } else {
            DecodedRequest decoded = (DecodedRequest) request;
            decoded.header().setCorrelationId(upstreamId);
            backend.write(decoded, backend.voidPromise());
        }
    }

    @Override
    public void channelReadComplete(ChannelHandlerContext ctx) {
        Channel backend = connection.backend();
        if (backend != null) {
            backend.flush();
        }
    }

    @Override
    public void channelWritabilityChanged(ChannelHandlerContext ctx) {
        connection.updateReads();
        ctx.fireChannelWritabilityChanged();
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) {
        connection.metrics().connectionClosed();
        connection.close("client disconnected", null);
        releaseWaiting();
    }

    @Override
    public void handlerRemoved(ChannelHandlerContext ctx) {
        releaseWaiting();
    }

    private void releaseWaiting() {
        RequestFrame request;
        while ((request = waitingForBroker.pollFirst()) != null) {
            request.release();
        }
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
        connection.close("client connection failed", unwrap(cause));
    }

    static Throwable unwrap(Throwable cause) {
        while (cause instanceof DecoderException && cause.getCause() != null) {
            cause = cause.getCause();
        }
        return cause;
    }
}
