package io.sluice.bridge.http;

import java.util.function.LongConsumer;

import io.netty.buffer.CompositeByteBuf;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.handler.codec.http.DefaultFullHttpRequest;
import io.netty.handler.codec.http.DefaultFullHttpResponse;
import io.netty.handler.codec.http.FullHttpRequest;
import io.netty.handler.codec.http.HttpContent;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpRequest;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpUtil;
import io.netty.handler.codec.http.LastHttpContent;
import io.netty.util.ReferenceCountUtil;

/**
 * Joins the body of a request to one of the {@link Route}s, up to {@code server.maxInboundMessageBytes}, ahead of the
 * pipeline's small handshake aggregator (which passes a joined request on untouched). A body announced larger by its
 * {@code Content-Length} is refused before a byte of it is buffered; a chunked one as soon as the chunks add up to
 * more. Either way {@link HttpRoutes} answers 413, in order after earlier requests, and the connection is closed; what
 * the client still sends is discarded, never buffered. {@code Expect: 100-continue} is answered here, so that a client
 * waiting for it (curl does for bodies over 1 KiB) sends at once. Requests for other paths pass untouched.
 */
public final class BodyLimit extends ChannelInboundHandlerAdapter {

    public static final String NAME = "http-body";

    /** The request whose body was too large, for {@link HttpRoutes} to answer. */
    record TooLarge(HttpRequest head, long announced) {
    }

    private final String serverPath;
    private final int maxBytes;
    private HttpRequest head;
    private CompositeByteBuf body;
    private boolean discarding;
    // The node's count of body bytes held (a gauge); what this one holds is body's readable bytes.
    private final LongConsumer held;

    /** @param held told every change of the bytes this holds: the node's gauge of buffered request bodies */
    public BodyLimit(String serverPath, int maxBytes, LongConsumer held) {
        this.serverPath = serverPath;
        this.maxBytes = maxBytes;
        this.held = held;
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
        if (discarding) {
            ReferenceCountUtil.release(msg);
            return;
        }
        if (msg instanceof HttpRequest request && !(msg instanceof FullHttpRequest)) {
            if (request.decoderResult().isSuccess() && Route.of(serverPath, request.uri()) != null) {
                start(ctx, request);
                if (msg instanceof HttpContent) {
                    content(ctx, (HttpContent) msg);
                }
                return;
            }
        }
        else if (msg instanceof HttpContent content && head != null) {
            content(ctx, content);
            return;
        }
        ctx.fireChannelRead(msg);
    }

    private void start(ChannelHandlerContext ctx, HttpRequest request) {
        long announced = HttpUtil.getContentLength(request, -1L);
        if (announced > maxBytes) {
            refuse(ctx, request, announced);
            return;
        }
        if (HttpUtil.is100ContinueExpected(request)) {
            request.headers().remove(HttpHeaderNames.EXPECT);
            ctx.writeAndFlush(new DefaultFullHttpResponse(request.protocolVersion(), HttpResponseStatus.CONTINUE));
        }
        head = request;
        body = ctx.alloc().compositeBuffer();
    }

    private void content(ChannelHandlerContext ctx, HttpContent content) {
        if (discarding) {
            content.release();
            return;
        }
        if ((long) body.readableBytes() + content.content().readableBytes() > maxBytes) {
            content.release();
            HttpRequest request = head;
            drop();
            refuse(ctx, request, -1);
            return;
        }
        held.accept(content.content().readableBytes());
        body.addComponent(true, content.content().retain());
        content.release();
        if (content instanceof LastHttpContent last) {
            // Handed on whole: the routes read it at once, and a publish's bytes count against the publish bounds.
            held.accept(-body.readableBytes());
            FullHttpRequest full = new DefaultFullHttpRequest(head.protocolVersion(), head.method(), head.uri(), body,
                    head.headers(), last.trailingHeaders());
            full.setDecoderResult(last.decoderResult());
            head = null;
            body = null;
            ctx.fireChannelRead(full);
        }
    }

    private void refuse(ChannelHandlerContext ctx, HttpRequest request, long announced) {
        discarding = true;
        ctx.fireChannelRead(new TooLarge(request, announced));
    }

    private void drop() {
        head = null;
        if (body != null) {
            held.accept(-body.readableBytes());
            body.release();
            body = null;
        }
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) throws Exception {
        drop();
        super.channelInactive(ctx);
    }

    @Override
    public void handlerRemoved(ChannelHandlerContext ctx) {
        drop();
    }
}
