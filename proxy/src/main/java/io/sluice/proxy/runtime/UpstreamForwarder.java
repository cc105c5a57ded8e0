package io.sluice.proxy.runtime;

import org.apache.kafka.common.protocol.ApiKeys;

import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.sluice.proxy.codec.DecodedRequest;
import io.sluice.proxy.codec.OpaqueRequest;
import io.sluice.proxy.codec.OutOfBand;
import io.sluice.proxy.codec.RequestFrame;

/**
 * The tail of the client pipeline: sends requests that came through every filter to the broker under the
 * proxy's own correlation ids, and is where broker responses re-enter the client pipeline (see
 * {@link BackendHandler}). Opens the broker connection when the client connects; client reads stay off
 * until it is up.
 */
final class UpstreamForwarder extends ChannelInboundHandlerAdapter {

    private final ProxyConnection connection;
    private final UpstreamDialer dialer;

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
        dialer.dial(connection).whenComplete((channel, error) -> ctx.executor().execute(() -> {
            if (error != null) {
                connection.metrics().upstreamConnectFailed();
                connection.close("cannot reach the broker", error);
            } else if (!ctx.channel().isActive()) {
                channel.close();
            } else {
                connection.backendConnected(channel);
            }
        }));
        ctx.fireChannelActive();
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
        if (!(msg instanceof RequestFrame request)) {
            io.netty.util.ReferenceCountUtil.release(msg);
            return;
        }
        Channel backend = connection.backend();
        if (backend == null || connection.isClosing()) {
            request.release();
            return;
        }
        OutOfBand outOfBand = request instanceof DecodedRequest decoded ? decoded.outOfBand() : null;
        ApiKeys apiKey = request.apiKey();
        boolean decodeResponse = connection.decodePolicy().decodeResponse(apiKey, request.apiVersion());
        int upstreamId = connection.tracker().register(request, decodeResponse, outOfBand);
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
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
        connection.close("client connection failed", unwrap(cause));
    }

    static Throwable unwrap(Throwable cause) {
        while (cause instanceof io.netty.handler.codec.DecoderException && cause.getCause() != null) {
            cause = cause.getCause();
        }
        return cause;
    }
}
