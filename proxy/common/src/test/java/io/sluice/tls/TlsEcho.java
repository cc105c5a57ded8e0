package io.sluice.tls;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import io.netty.bootstrap.Bootstrap;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.socket.SocketChannel;
import io.netty.channel.socket.nio.NioServerSocketChannel;
import io.netty.channel.socket.nio.NioSocketChannel;
import io.netty.handler.ssl.SslContext;
import io.netty.handler.ssl.SslHandler;

import io.sluice.config.TlsClientConfig;

/**
 * A TLS echo server and a client that sends one message over loopback, reporting how each side's handshake went and
 * what came back. The client connects to 127.0.0.1 but presents "localhost" as the peer host, which is what hostname
 * verification checks.
 */
final class TlsEcho implements AutoCloseable {

    static final String PEER_HOST = "localhost";
    private static final String MESSAGE = "ping";
    private static final long TIMEOUT_SECONDS = 10;

    record Outcome(Throwable clientFailure, Throwable serverFailure, String echoed) {

        boolean succeeded() {
            return clientFailure == null && serverFailure == null && MESSAGE.equals(echoed);
        }
    }

    private final EventLoopGroup group = new MultiThreadIoEventLoopGroup(2, NioIoHandler.newFactory());

    Outcome exchange(SslContext serverContext, SslContext clientContext, TlsClientConfig clientConfig) throws Exception {
        CompletableFuture<Throwable> serverHandshake = new CompletableFuture<>();
        Channel server = new ServerBootstrap().group(group).channel(NioServerSocketChannel.class)
                .childHandler(new ChannelInitializer<SocketChannel>() {
                    @Override
                    protected void initChannel(SocketChannel ch) {
                        SslHandler ssl = serverContext.newHandler(ch.alloc());
                        ssl.handshakeFuture().addListener(f -> serverHandshake.complete(f.cause()));
                        ch.pipeline().addLast(ssl, new Echo());
                    }
                })
                .bind(InetAddress.getLoopbackAddress(), 0).sync().channel();
        int port = ((InetSocketAddress) server.localAddress()).getPort();

        CompletableFuture<Throwable> clientHandshake = new CompletableFuture<>();
        CompletableFuture<String> echoed = new CompletableFuture<>();
        Channel client = new Bootstrap().group(group).channel(NioSocketChannel.class)
                .handler(new ChannelInitializer<SocketChannel>() {
                    @Override
                    protected void initChannel(SocketChannel ch) {
                        SslHandler ssl = clientContext.newHandler(ch.alloc(), PEER_HOST, port);
                        if (clientConfig != null) {
                            SslContexts.applyHostnameVerification(ssl.engine(), clientConfig);
                        }
                        ssl.handshakeFuture().addListener(f -> {
                            clientHandshake.complete(f.cause());
                            if (f.isSuccess()) {
                                ch.writeAndFlush(Unpooled.copiedBuffer(MESSAGE, StandardCharsets.US_ASCII));
                            }
                        });
                        ch.pipeline().addLast(ssl, new Collect(echoed));
                    }
                })
                .connect(InetAddress.getLoopbackAddress(), port).sync().channel();
        try {
            Throwable clientFailure = clientHandshake.get(TIMEOUT_SECONDS, TimeUnit.SECONDS);
            String reply = echoed.exceptionally(e -> null).get(TIMEOUT_SECONDS, TimeUnit.SECONDS);
            Throwable serverFailure = serverHandshake.get(TIMEOUT_SECONDS, TimeUnit.SECONDS);
            return new Outcome(clientFailure, serverFailure, reply);
        }
        finally {
            client.close().sync();
            server.close().sync();
        }
    }

    @Override
    public void close() {
        group.shutdownGracefully(0, 1, TimeUnit.SECONDS).syncUninterruptibly();
    }

    private static final class Echo extends ChannelInboundHandlerAdapter {

        @Override
        public void channelRead(ChannelHandlerContext ctx, Object msg) {
            ctx.writeAndFlush(msg);
        }

        @Override
        public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
            ctx.close();
        }
    }

    /** Completes with the reply once it is whole, or with null if the connection ends first. */
    private static final class Collect extends ChannelInboundHandlerAdapter {

        private final CompletableFuture<String> result;
        private final StringBuilder received = new StringBuilder();

        Collect(CompletableFuture<String> result) {
            this.result = result;
        }

        @Override
        public void channelRead(ChannelHandlerContext ctx, Object msg) {
            ByteBuf buf = (ByteBuf) msg;
            try {
                received.append(buf.toString(StandardCharsets.US_ASCII));
            }
            finally {
                buf.release();
            }
            if (received.length() >= MESSAGE.length()) {
                result.complete(received.toString());
            }
        }

        @Override
        public void channelInactive(ChannelHandlerContext ctx) {
            result.complete(null);
        }

        @Override
        public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
            result.complete(null);
            ctx.close();
        }
    }
}
