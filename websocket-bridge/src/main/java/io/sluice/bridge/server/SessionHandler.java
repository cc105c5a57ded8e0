package io.sluice.bridge.server;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.handler.codec.http.websocketx.BinaryWebSocketFrame;
import io.netty.handler.codec.http.websocketx.TextWebSocketFrame;
import io.netty.handler.codec.http.websocketx.WebSocketServerProtocolHandler;
import io.netty.util.ReferenceCountUtil;
import io.sluice.bridge.session.Session;
import io.sluice.bridge.session.SessionServices;

/**
 * The last handler: complete WebSocket data frames in (control frames are answered by Netty's protocol handler), calls
 * on the connection's {@link Session} out. Owns nothing it does not release on the spot.
 */
final class SessionHandler extends ChannelInboundHandlerAdapter {

    private static final Logger LOG = LoggerFactory.getLogger(SessionHandler.class);

    private final SessionServices services;
    private final Runnable upgraded;
    private Session session;

    /** @param upgraded told when the WebSocket handshake completes */
    SessionHandler(SessionServices services, Runnable upgraded) {
        this.services = services;
        this.upgraded = upgraded;
    }

    @Override
    public void userEventTriggered(ChannelHandlerContext ctx, Object event) throws Exception {
        if (event instanceof WebSocketServerProtocolHandler.HandshakeComplete) {
            upgraded.run();
            session = new Session(ctx.channel(), services);
            session.opened();
        }
        super.userEventTriggered(ctx, event);
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
        try {
            if (session == null) {
                return;
            }
            if (msg instanceof TextWebSocketFrame text) {
                session.received(text.content());
            }
            else if (msg instanceof BinaryWebSocketFrame) {
                session.receivedBinary();
            }
        }
        finally {
            ReferenceCountUtil.release(msg);
        }
    }

    @Override
    public void channelWritabilityChanged(ChannelHandlerContext ctx) throws Exception {
        if (session != null) {
            if (ctx.channel().isWritable()) {
                session.writable();
            }
            else {
                session.unwritable();
            }
        }
        super.channelWritabilityChanged(ctx);
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) throws Exception {
        if (session != null) {
            session.closed();
        }
        super.channelInactive(ctx);
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
        LOG.debug("{}: closing connection after {}", ctx.channel().remoteAddress(), cause.toString());
        ctx.close();
    }
}
