package io.sluice.bridge.http;

import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.handler.codec.http.FullHttpRequest;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaderValues;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.QueryStringDecoder;
import io.netty.util.AttributeKey;
import io.netty.util.ReferenceCountUtil;
import io.sluice.bridge.protocol.ErrorCodes;
import io.sluice.flow.Closing;

/**
 * Routes {@code GET {server.path}/sse} to the {@link StreamStarter} (only when {@code http.enabled}), with the
 * credentials {@link HttpCredentials} finds, as for every HTTP route; other methods on that path get 405, every other
 * request goes on. Once a stream is being started, whatever else the client sent on the connection is dropped: the
 * connection will carry only the stream.
 */
public final class StreamRoute extends ChannelInboundHandlerAdapter {

    public static final String NAME = "sse-route";
    /**
     * Set on a connection that may start a stream: run once the stream starts, it takes the connection out of the
     * handshake pool as a WebSocket upgrade does.
     */
    public static final AttributeKey<Runnable> LEAVE_HANDSHAKE = AttributeKey.valueOf(StreamRoute.class, "leaveHandshake");

    private final String path;
    private final StreamStarter starter;
    private final HttpCredentials credentials;
    private final Origins origins;
    private final Runnable leaveHandshake;
    private boolean started;

    public StreamRoute(String serverPath, StreamStarter starter, HttpCredentials credentials, Origins origins, Runnable leaveHandshake) {
        this.path = streamPath(serverPath);
        this.starter = starter;
        this.credentials = credentials;
        this.origins = origins;
        this.leaveHandshake = leaveHandshake;
    }

    /** {@code {server.path}/sse}. */
    public static String streamPath(String serverPath) {
        return (serverPath.endsWith("/") ? serverPath.substring(0, serverPath.length() - 1) : serverPath) + "/sse";
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
        if (started) {
            ReferenceCountUtil.release(msg);
            return;
        }
        if (!(msg instanceof FullHttpRequest request) || !path.equals(new QueryStringDecoder(request.uri()).path())) {
            ctx.fireChannelRead(msg);
            return;
        }
        started = true;
        try {
            if (!HttpMethod.GET.equals(request.method())) {
                FullHttpResponse response = Answers.error(request.protocolVersion(), HttpResponseStatus.METHOD_NOT_ALLOWED,
                        ErrorCodes.MALFORMED, "the stream is read with GET", -1);
                response.headers().set(HttpHeaderNames.ALLOW, "GET");
                refuse(ctx, request, response);
                return;
            }
            HttpCredentials.Result found = credentials.of(request);
            if (found instanceof HttpCredentials.Refused refused) {
                refuse(ctx, request, Answers.error(request.protocolVersion(), refused.status(), refused.code(), refused.message(), -1));
                return;
            }
            ctx.channel().attr(LEAVE_HANDSHAKE).set(leaveHandshake);
            starter.start(ctx, request, ((HttpCredentials.Token) found).token());
        }
        finally {
            request.release();
        }
    }

    private void refuse(ChannelHandlerContext ctx, FullHttpRequest request, FullHttpResponse response) {
        origins.addCorsHeaders(request.headers(), response.headers());
        response.headers().set(HttpHeaderNames.CONNECTION, HttpHeaderValues.CLOSE);
        Closing.closeOnceDone(ctx.channel(), ctx.writeAndFlush(response), Closing.DEFAULT_GRACE);
    }
}
