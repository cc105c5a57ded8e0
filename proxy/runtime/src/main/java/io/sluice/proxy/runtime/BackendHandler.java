package io.sluice.proxy.runtime;

import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.util.ReferenceCountUtil;
import org.apache.kafka.common.message.ApiVersionsResponseData;

import io.sluice.proxy.codec.DecodedResponse;
import io.sluice.proxy.codec.ResponseFrame;

/**
 * The tail of the broker pipeline: hands each response to the client pipeline at its tail, so that it
 * travels back through the filters, and ties the two connections' lifetimes and read rates together.
 */
public final class BackendHandler extends ChannelInboundHandlerAdapter {

    private final ProxyConnection connection;

    public BackendHandler(ProxyConnection connection) {
        this.connection = connection;
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
        if (msg instanceof ResponseFrame response) {
            if (connection.isClosing()) {
                response.release();
            } else {
                if (response instanceof DecodedResponse decoded && decoded.body() instanceof ApiVersionsResponseData versions) {
                    connection.apiVersions().remember(decoded.apiVersion(), versions);
                }
                connection.forwarderContext().write(response, connection.frontend().voidPromise());
            }
        } else {
            ReferenceCountUtil.release(msg);
        }
    }

    @Override
    public void channelReadComplete(ChannelHandlerContext ctx) {
        connection.forwarderContext().flush();
    }

    @Override
    public void channelWritabilityChanged(ChannelHandlerContext ctx) {
        connection.updateReads();
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) {
        connection.close("the broker closed its connection", null);
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
        connection.closeForBroker("broker connection failed", cause);
    }
}
