package io.sluice.proxy.runtime;

import java.time.Duration;
import java.util.concurrent.TimeUnit;

import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.timeout.IdleStateEvent;
import io.netty.handler.timeout.IdleStateHandler;
import io.sluice.proxy.codec.ProtocolException;

/**
 * Closes a client connection on which nothing was read or written for {@code network.connectionsMaxIdle}, as a broker
 * closes its idle connections after {@code connections.max.idle.ms}. Without it a peer that sent requests until their
 * answers filled its socket's send buffer, and then went quiet, kept that buffer (kernel memory, up to the send
 * buffer's limit) and the connection for as long as it liked: the proxy had read everything it sent and had nothing
 * unwritable to time out.
 */
final class IdleClose extends IdleStateHandler {

    static final String NAME = "idle-close";

    private final ProxyConnection connection;
    private final Duration limit;

    IdleClose(Duration limit, ProxyConnection connection) {
        super(0, 0, limit.toNanos(), TimeUnit.NANOSECONDS);
        this.connection = connection;
        this.limit = limit;
    }

    @Override
    protected void channelIdle(ChannelHandlerContext ctx, IdleStateEvent event) {
        connection.close("idle", new ProtocolException(ProtocolException.Reason.IDLE,
                "nothing read or written for network.connectionsMaxIdle " + limit.toMillis() + " ms"));
    }
}
