package io.sluice.bridge.web;

import java.nio.charset.StandardCharsets;
import java.util.Optional;

import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.SimpleChannelInboundHandler;
import io.netty.handler.codec.http.DefaultFullHttpResponse;
import io.netty.handler.codec.http.FullHttpRequest;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaderValues;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpUtil;
import io.netty.handler.codec.http.QueryStringDecoder;
import io.sluice.flow.Closing;

/**
 * Answers the plain HTTP requests that are not a WebSocket upgrade (Netty's WebSocket handler passes them on): GET
 * and HEAD of a {@link StaticContent} file get 200, unknown files 404, other methods 405. WebSocket frames pass
 * through untouched. Files are read once ({@link StaticContent}); each response sends a view of the same bytes. A
 * request is answered only while the connection is writable (the pipeline's WritabilityGates hold pipelined requests
 * while earlier answers wait), and a {@code Connection: close} request is closed within the grace of {@link Closing}.
 */
public final class StaticFileHandler extends SimpleChannelInboundHandler<FullHttpRequest> {

    private final StaticContent content;

    public StaticFileHandler(StaticContent content) {
        this.content = content;
    }

    @Override
    protected void channelRead0(ChannelHandlerContext ctx, FullHttpRequest request) {
        boolean head = request.method().equals(HttpMethod.HEAD);
        FullHttpResponse response;
        if (!head && !request.method().equals(HttpMethod.GET)) {
            response = status(request, HttpResponseStatus.METHOD_NOT_ALLOWED);
            response.headers().set(HttpHeaderNames.ALLOW, "GET, HEAD");
        } else {
            Optional<StaticContent.File> file = content.find(new QueryStringDecoder(request.uri()).path(),
                    request.headers().get(HttpHeaderNames.HOST));
            if (file.isEmpty()) {
                response = status(request, HttpResponseStatus.NOT_FOUND);
            } else {
                response = new DefaultFullHttpResponse(request.protocolVersion(), HttpResponseStatus.OK,
                        head ? Unpooled.EMPTY_BUFFER : file.get().body());
                response.headers().set(HttpHeaderNames.CONTENT_TYPE, file.get().contentType())
                        .set(HttpHeaderNames.CONTENT_LENGTH, file.get().length())
                        // Pages and the client change with the build; never let a browser run a stale copy.
                        .set(HttpHeaderNames.CACHE_CONTROL, "no-cache");
            }
        }
        boolean keepAlive = HttpUtil.isKeepAlive(request);
        if (keepAlive) {
            response.headers().set(HttpHeaderNames.CONNECTION, HttpHeaderValues.KEEP_ALIVE);
        }
        var written = ctx.writeAndFlush(response);
        if (!keepAlive) {
            Closing.closeOnceDone(ctx.channel(), written, Closing.DEFAULT_GRACE);
        }
    }

    private static FullHttpResponse status(FullHttpRequest request, HttpResponseStatus status) {
        byte[] text = (status.code() + " " + status.reasonPhrase() + "\n").getBytes(StandardCharsets.US_ASCII);
        FullHttpResponse response = new DefaultFullHttpResponse(request.protocolVersion(), status, Unpooled.wrappedBuffer(text));
        response.headers().set(HttpHeaderNames.CONTENT_TYPE, "text/plain; charset=us-ascii")
                .set(HttpHeaderNames.CONTENT_LENGTH, text.length);
        return response;
    }
}
