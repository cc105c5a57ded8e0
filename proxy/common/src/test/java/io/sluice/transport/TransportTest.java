package io.sluice.transport;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.InputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.junit.jupiter.api.Test;

import io.netty.bootstrap.ServerBootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.epoll.Epoll;
import io.netty.channel.uring.IoUring;
import io.sluice.config.ConfigException;

/** Each transport a configuration can name really serves a socket; a bad name or an unavailable one is a clear error. */
class TransportTest {

    @ParameterizedTest
    @ValueSource(strings = {"auto", "io_uring", "epoll", "nio"})
    void eachTransportServesAConnection(String name) throws Exception {
        assumeTrue(!name.equals("io_uring") || IoUring.isAvailable(), "io_uring not available here");
        assumeTrue(!name.equals("epoll") || Epoll.isAvailable(), "epoll not available here");
        Transport transport = Transport.select(name);
        assertThat(transport.name()).isEqualTo(name.equals("auto") ? (Epoll.isAvailable() ? "epoll" : "nio") : name);
        EventLoopGroup group = transport.newGroup(1, "transport-test");
        try {
            Channel server = new ServerBootstrap().group(group).channel(transport.serverChannel())
                    .childHandler(new ChannelInboundHandlerAdapter() {
                        @Override
                        public void channelRead(ChannelHandlerContext ctx, Object msg) {
                            ctx.writeAndFlush(msg);
                        }
                    })
                    .bind("127.0.0.1", 0).sync().channel();
            try (Socket client = new Socket()) {
                client.connect((InetSocketAddress) server.localAddress(), 5_000);
                client.setSoTimeout(5_000);
                client.getOutputStream().write("ping".getBytes(StandardCharsets.US_ASCII));
                InputStream in = client.getInputStream();
                assertThat(new String(in.readNBytes(4), StandardCharsets.US_ASCII)).isEqualTo("ping");
            }
            server.close().sync();
        } finally {
            group.shutdownGracefully(0, 1, TimeUnit.SECONDS).sync();
        }
    }

    @Test
    void anUnknownNameIsAProblemNamingTheChoices() {
        assertThat(Transport.problem("kqueue")).isEqualTo("must be one of auto, io_uring, epoll, nio (was 'kqueue')");
        assertThat(Transport.problem("io_uring")).isNull();
        assertThatThrownBy(() -> Transport.forConfig("kqueue", "server.transport"))
                .isInstanceOf(ConfigException.class)
                .hasMessageContaining("server.transport: unknown transport 'kqueue'");
    }
}
