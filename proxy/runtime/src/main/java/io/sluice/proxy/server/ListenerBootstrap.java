package io.sluice.proxy.server;

import io.netty.bootstrap.ServerBootstrap;
import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.WriteBufferWaterMark;
import io.sluice.proxy.config.NetworkConfig;
import io.sluice.transport.Transport;

/**
 * The server socket settings of every port clients connect to, port-per-broker or SNI. Accepted connections start with
 * reads off: a connection over a limit is closed unread, and after that the connection's own handlers decide when to
 * read (back-pressure).
 */
final class ListenerBootstrap {

    private ListenerBootstrap() {
    }

    static ServerBootstrap create(EventLoopGroup group, Transport transport, NetworkConfig network, ChannelHandler childHandler) {
        return new ServerBootstrap()
                .group(group)
                .channel(transport.serverChannel())
                .option(ChannelOption.SO_REUSEADDR, true)
                .childOption(ChannelOption.TCP_NODELAY, true)
                .childOption(ChannelOption.AUTO_READ, false)
                .childOption(ChannelOption.WRITE_BUFFER_WATER_MARK,
                        new WriteBufferWaterMark(network.writeBufferLowWaterMark(), network.writeBufferHighWaterMark()))
                .childHandler(childHandler);
    }
}
