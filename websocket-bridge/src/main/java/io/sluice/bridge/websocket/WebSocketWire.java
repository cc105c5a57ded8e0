package io.sluice.bridge.websocket;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.codec.http.websocketx.CloseWebSocketFrame;
import io.netty.handler.codec.http.websocketx.TextWebSocketFrame;
import io.sluice.bridge.protocol.EncodedMessage;
import io.sluice.bridge.session.Wire;

/**
 * The WebSocket transport: messages' pre-encoded frames written at the {@code frames} context, next to the socket;
 * replies as text frames and closes as close frames through the WebSocket codec.
 */
final class WebSocketWire implements Wire {

    private final Channel channel;
    // Where pre-encoded frames are written: next to the socket, past the WebSocket and HTTP handlers.
    private final ChannelHandlerContext frames;

    WebSocketWire(Channel channel, ChannelHandlerContext frames) {
        this.channel = channel;
        this.frames = frames;
    }

    @Override
    public String transport() {
        return "websocket";
    }

    @Override
    public void message(EncodedMessage message, ByteBuf frame, boolean delta, String pattern) {
        frames.write(frame.retainedDuplicate(), frames.voidPromise());
    }

    @Override
    public void control(byte[] json) {
        channel.writeAndFlush(new TextWebSocketFrame(Unpooled.wrappedBuffer(json)), channel.voidPromise());
    }

    @Override
    public void flush() {
        frames.flush();
    }

    @Override
    public ChannelFuture close(int code, String reason) {
        return channel.writeAndFlush(new CloseWebSocketFrame(code, reason));
    }
}
