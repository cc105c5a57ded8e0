package io.sluice.bridge.sse;

import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.util.ReferenceCountUtil;
import io.sluice.bridge.session.Session;

/**
 * Takes the HTTP codec's place once a stream has started: the connection carries only the stream from then on, so
 * whatever the client sends is read and dropped (reads are still held by the WritabilityGate while the client is
 * behind), and nothing pipelined behind the GET is answered. Tells the session when the socket drains, backs up or
 * closes, as the WebSocket session handler does.
 */
final class StreamConnection extends ChannelInboundHandlerAdapter {

    static final String NAME = "sse";

    private final Session session;
    private final SseWire wire;

    StreamConnection(Session session, SseWire wire) {
        this.session = session;
        this.wire = wire;
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
        ReferenceCountUtil.release(msg);
    }

    @Override
    public void channelWritabilityChanged(ChannelHandlerContext ctx) throws Exception {
        session.writabilityChanged();
        super.channelWritabilityChanged(ctx);
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) throws Exception {
        wire.stop();
        session.closed();
        super.channelInactive(ctx);
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
        ctx.close();
    }
}
