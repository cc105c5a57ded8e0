package io.sluice.bridge.mqtt;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelDuplexHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelPromise;
import io.netty.handler.codec.http.DefaultFullHttpResponse;
import io.netty.handler.codec.http.FullHttpRequest;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaderValues;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.websocketx.BinaryWebSocketFrame;
import io.netty.handler.codec.http.websocketx.ContinuationWebSocketFrame;
import io.netty.handler.codec.http.websocketx.WebSocketFrame;
import io.netty.util.ReferenceCountUtil;
import io.sluice.flow.Closing;

/**
 * MQTT over WebSocket (MQTT 5.0, 6): in, binary and continuation frames, whose bytes are the MQTT stream (a packet may
 * span frames, a frame hold several); out, each encoded packet as one binary frame. A text frame is a protocol
 * violation and closes the connection, as MQTT requires; an HTTP request that is not the upgrade on the MQTT path is
 * answered 404 and closed.
 */
final class WebSocketPackets extends ChannelDuplexHandler {

    static final String NAME = "mqtt-websocket";

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
        if (msg instanceof BinaryWebSocketFrame || msg instanceof ContinuationWebSocketFrame) {
            ctx.fireChannelRead(((WebSocketFrame) msg).content());
            return;
        }
        ReferenceCountUtil.release(msg);
        if (msg instanceof FullHttpRequest request) {
            FullHttpResponse notFound = new DefaultFullHttpResponse(request.protocolVersion(), HttpResponseStatus.NOT_FOUND, Unpooled.EMPTY_BUFFER);
            notFound.headers().set(HttpHeaderNames.CONTENT_LENGTH, 0).set(HttpHeaderNames.CONNECTION, HttpHeaderValues.CLOSE);
            Closing.closeOnceDone(ctx.channel(), ctx.writeAndFlush(notFound), Closing.DEFAULT_GRACE);
            return;
        }
        ctx.close();
    }

    @Override
    public void write(ChannelHandlerContext ctx, Object msg, ChannelPromise promise) {
        ctx.write(msg instanceof ByteBuf bytes ? new BinaryWebSocketFrame(bytes) : msg, promise);
    }
}
