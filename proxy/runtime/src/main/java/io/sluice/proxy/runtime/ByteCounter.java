package io.sluice.proxy.runtime;

import java.util.function.LongConsumer;

import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelDuplexHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelPromise;

/** Counts the bytes crossing a socket, in and out, for the byte metrics. Sits next to the socket. */
public final class ByteCounter extends ChannelDuplexHandler {

    private final LongConsumer in;
    private final LongConsumer out;

    public ByteCounter(LongConsumer in, LongConsumer out) {
        this.in = in;
        this.out = out;
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
        if (msg instanceof ByteBuf buf) {
            in.accept(buf.readableBytes());
        }
        ctx.fireChannelRead(msg);
    }

    @Override
    public void write(ChannelHandlerContext ctx, Object msg, ChannelPromise promise) {
        if (msg instanceof ByteBuf buf) {
            out.accept(buf.readableBytes());
        }
        ctx.write(msg, promise);
    }
}
