package io.sluice.bridge.server;

import java.nio.charset.StandardCharsets;

import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.handler.codec.http.DefaultFullHttpResponse;
import io.netty.handler.codec.http.FullHttpRequest;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaderValues;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpRequest;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpVersion;
import io.netty.handler.codec.http.QueryStringDecoder;
import io.netty.util.ReferenceCountUtil;
import io.sluice.bridge.http.StreamStarter;
import io.sluice.bridge.protocol.ErrorCodes;
import io.sluice.bridge.protocol.ServerMessages;
import io.sluice.bridge.sse.SseStreams;
import io.sluice.flow.Closing;

/**
 * Routes {@code GET {server.path}/sse} to the {@link StreamStarter} (only when {@code http.enabled}); other methods on
 * that path get 405, every other request goes on. Once a stream is being started, whatever else the client sent on
 * the connection is dropped: the connection will carry only the stream.
 */
final class StreamRoute extends ChannelInboundHandlerAdapter {

    static final String NAME = "sse-route";
    private static final String BEARER = "bearer ";

    private final String path;
    private final StreamStarter starter;
    private final ConnectionAdmission admission;
    private boolean started;

    StreamRoute(String serverPath, StreamStarter starter, ConnectionAdmission admission) {
        this.path = (serverPath.endsWith("/") ? serverPath.substring(0, serverPath.length() - 1) : serverPath) + "/sse";
        this.starter = starter;
        this.admission = admission;
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
        try {
            if (!HttpMethod.GET.equals(request.method())) {
                notAllowed(ctx);
                started = true;
                return;
            }
            started = true;
            ctx.channel().attr(SseStreams.LEAVE_HANDSHAKE).set(admission::upgraded);
            starter.start(ctx, request, token(request));
        }
        finally {
            request.release();
        }
    }

    /**
     * The request's bearer token, or null. The one place a stream's credentials are read: the session cookie
     * ({@code io.sluice.bridge.http.HttpCredentials}) plugs in here.
     */
    static String token(HttpRequest request) {
        String authorization = request.headers().get(HttpHeaderNames.AUTHORIZATION);
        if (authorization == null || authorization.length() <= BEARER.length()
                || !authorization.regionMatches(true, 0, BEARER, 0, BEARER.length())) {
            return null;
        }
        return authorization.substring(BEARER.length()).strip();
    }

    private static void notAllowed(ChannelHandlerContext ctx) {
        byte[] body = ServerMessages.error(null, ErrorCodes.MALFORMED, "the stream is read with GET");
        FullHttpResponse response = new DefaultFullHttpResponse(HttpVersion.HTTP_1_1, HttpResponseStatus.METHOD_NOT_ALLOWED,
                Unpooled.wrappedBuffer(body));
        response.headers().set(HttpHeaderNames.ALLOW, "GET")
                .set(HttpHeaderNames.CONTENT_TYPE, HttpHeaderValues.APPLICATION_JSON)
                .set(HttpHeaderNames.CONTENT_LENGTH, body.length)
                .set(HttpHeaderNames.CONNECTION, HttpHeaderValues.CLOSE);
        Closing.closeOnceDone(ctx.channel(), ctx.writeAndFlush(response), Closing.DEFAULT_GRACE);
    }
}
