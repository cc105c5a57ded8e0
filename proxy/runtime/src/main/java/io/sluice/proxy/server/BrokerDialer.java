package io.sluice.proxy.server;

import java.io.IOException;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Function;

import io.netty.bootstrap.Bootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelOption;
import io.netty.channel.WriteBufferWaterMark;
import io.netty.handler.ssl.SslContext;
import io.netty.handler.ssl.SslHandler;
import io.sluice.config.HostPort;
import io.sluice.proxy.config.NetworkConfig;
import io.sluice.proxy.config.SaslClientConfig;
import io.sluice.config.TlsClientConfig;
import io.sluice.proxy.runtime.ProxyConnection;
import io.sluice.proxy.runtime.UpstreamAuthenticator;
import io.sluice.proxy.runtime.UpstreamChannelInitializer;
import io.sluice.proxy.runtime.UpstreamDialer;
import io.sluice.tls.SslContexts;
import io.sluice.transport.Transport;

/**
 * Connects a client connection to a broker on the client's own event loop, so both halves of the
 * connection share a thread and never need locks. Where to go is a function: the bootstrap dialer tries
 * the target's bootstrap servers in turn, a node dialer asks the registry for that node's address.
 */
final class BrokerDialer implements UpstreamDialer {

    private final Function<ProxyConnection, CompletionStage<List<HostPort>>> targets;
    private final Transport transport;
    private final NetworkConfig network;
    private final SslContext sslContext;
    private final TlsClientConfig tls;
    private final SaslClientConfig sasl;
    private final AtomicInteger roundRobin = new AtomicInteger();

    BrokerDialer(Function<ProxyConnection, CompletionStage<List<HostPort>>> targets, Transport transport, NetworkConfig network,
                 SslContext sslContext, TlsClientConfig tls, SaslClientConfig sasl) {
        this.sasl = sasl;
        this.targets = targets;
        this.transport = transport;
        this.network = network;
        this.sslContext = sslContext;
        this.tls = tls;
    }

    @Override
    public CompletionStage<Channel> dial(ProxyConnection connection) {
        return targets.apply(connection).thenCompose(candidates -> {
            CompletableFuture<Channel> result = new CompletableFuture<>();
            int first = Math.floorMod(roundRobin.getAndIncrement(), candidates.size());
            attempt(connection, candidates, first, 0, result, null);
            return result;
        });
    }

    private void attempt(ProxyConnection connection, List<HostPort> candidates, int first, int tried, CompletableFuture<Channel> result, Throwable last) {
        if (tried == candidates.size()) {
            result.completeExceptionally(last);
            return;
        }
        HostPort target = candidates.get((first + tried) % candidates.size());
        connect(connection, target).addListener(f -> {
            if (f.isSuccess()) {
                Channel channel = ((ChannelFuture) f).channel();
                UpstreamAuthenticator authenticator = channel.pipeline().get(UpstreamAuthenticator.class);
                if (authenticator == null) {
                    result.complete(channel);
                } else {
                    // An authentication failure is final: other brokers would reject the same credentials.
                    authenticator.ready().whenComplete((ok, error) -> {
                        if (error == null) {
                            result.complete(channel);
                        } else {
                            channel.close();
                            result.completeExceptionally(error);
                        }
                    });
                }
            } else {
                attempt(connection, candidates, first, tried + 1, result,
                        new IOException("cannot connect to broker " + target + ": " + f.cause().getMessage(), f.cause()));
            }
        });
    }

    private ChannelFuture connect(ProxyConnection connection, HostPort target) {
        UpstreamChannelInitializer.TlsHandlerFactory tlsHandler = sslContext == null ? null : ch -> {
            SslHandler handler = sslContext.newHandler(ch.alloc(), target.host(), target.port());
            SslContexts.applyHostnameVerification(handler.engine(), tls);
            return handler;
        };
        return new Bootstrap()
                .group(connection.frontend().eventLoop())
                .channel(transport.socketChannel())
                .option(ChannelOption.TCP_NODELAY, true)
                .option(ChannelOption.CONNECT_TIMEOUT_MILLIS, (int) network.connectTimeout().toMillis())
                .option(ChannelOption.WRITE_BUFFER_WATER_MARK, new WriteBufferWaterMark(network.writeBufferLowWaterMark(), network.writeBufferHighWaterMark()))
                .handler(new UpstreamChannelInitializer(connection, tlsHandler, network.maxFrameBytes(), sasl, network.connectTimeout()))
                .connect(target.host(), target.port());
    }
}
