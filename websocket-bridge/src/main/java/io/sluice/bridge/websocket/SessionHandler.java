package io.sluice.bridge.websocket;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.handler.codec.TooLongFrameException;
import io.netty.handler.codec.http.websocketx.BinaryWebSocketFrame;
import io.netty.handler.codec.http.websocketx.CloseWebSocketFrame;
import io.netty.handler.codec.http.websocketx.CorruptedWebSocketFrameException;
import io.netty.handler.codec.http.websocketx.WebSocketCloseStatus;
import io.netty.handler.codec.http.websocketx.TextWebSocketFrame;
import io.netty.handler.codec.http.websocketx.WebSocketServerProtocolHandler;
import io.netty.util.ReferenceCountUtil;
import io.sluice.bridge.session.Session;
import io.sluice.bridge.session.SessionServices;
import io.sluice.flow.Closing;

/**
 * The last handler: complete WebSocket data frames in (control frames are answered by Netty's protocol handler), calls
 * on the connection's {@link Session} out. Owns nothing it does not release on the spot.
 */
final class SessionHandler extends ChannelInboundHandlerAdapter {

    private static final Logger LOG = LoggerFactory.getLogger(SessionHandler.class);

    private final SessionServices services;
    private final Runnable upgraded;
    private final PreConnectLimit limit;
    private Session session;
    /** Set once the connection is being closed after a 1009: the rest of what the client sends is discarded. */
    private boolean lingering;

    /**
     * @param upgraded told when the WebSocket handshake completes
     * @param limit    the connection's message size limit, lifted by the session's connect
     */
    SessionHandler(SessionServices services, Runnable upgraded, PreConnectLimit limit) {
        this.services = services;
        this.upgraded = upgraded;
        this.limit = limit;
    }

    @Override
    public void userEventTriggered(ChannelHandlerContext ctx, Object event) throws Exception {
        if (event instanceof WebSocketServerProtocolHandler.HandshakeComplete) {
            WebSocketPipeline.upgraded(ctx.pipeline());
            upgraded.run();
            session = new Session(ctx.channel(), new WebSocketWire(ctx.channel(), ctx.pipeline().context(EncodedFrames.NAME)), services, limit);
            session.opened();
        }
        super.userEventTriggered(ctx, event);
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
        try {
            if (session == null || lingering) {
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
            session.writabilityChanged();
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
        if (lingering) {
            return;
        }
        LOG.debug("{}: closing connection after {}", ctx.channel().remoteAddress(), cause.toString());
        if (session != null && cause instanceof CorruptedWebSocketFrameException corrupt
                && corrupt.closeStatus().code() == WebSocketCloseStatus.MESSAGE_TOO_BIG.code()) {
            // A frame over the limit: the decoder refused it on its header and sent the 1009 itself.
            limit.tooLarge();
        }
        else if (session != null && cause instanceof TooLongFrameException) {
            // A fragmented message whose frames add up to more than the limit: the aggregator sends no close frame.
            limit.tooLarge();
            // The client may still be sending the rest of the message: let it, discarding it, so that the socket is not
            // closed with unread bytes (a reset, which can destroy the close frame before the client reads it).
            lingering = true;
            Closing.lingerAfter(ctx.channel(), ctx.writeAndFlush(new CloseWebSocketFrame(WebSocketCloseStatus.MESSAGE_TOO_BIG,
                    "message too big")), Closing.DEFAULT_GRACE);
            return;
        }
        ctx.close();
    }
}
