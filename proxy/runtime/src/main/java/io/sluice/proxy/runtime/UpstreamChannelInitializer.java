package io.sluice.proxy.runtime;

import java.time.Duration;

import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelPipeline;
import io.netty.channel.socket.SocketChannel;
import io.netty.handler.ssl.SslHandler;
import io.sluice.proxy.codec.FrameDecoder;
import io.sluice.proxy.codec.FrameEncoder;
import io.sluice.proxy.codec.ResponseDecoder;
import io.sluice.proxy.config.SaslClientConfig;

/**
 * Assembles the pipeline of a broker connection:
 *
 * <pre>
 *   socket
 *   [tls]        TLS towards the broker, when the target cluster has it
 *   bytes        counts bytes for metrics
 *   frame        int32-size framing, size limit
 *   decode       restores the client's correlation id; body decoded if a filter wants it
 *   encode       requests to bytes
 *   [auth]       the proxy's own SASL login, when the target cluster has credentials
 *   backend      into the client pipeline's tail
 * </pre>
 */
public final class UpstreamChannelInitializer extends ChannelInitializer<SocketChannel> {

    /** Builds the TLS handler for a broker host and port (SNI and hostname verification need them). */
    public interface TlsHandlerFactory {
        SslHandler create(SocketChannel channel);
    }

    private final ProxyConnection connection;
    private final TlsHandlerFactory tls;
    private final int maxFrameBytes;
    private final SaslClientConfig sasl;
    private final Duration saslTimeout;

    /** @param sasl the proxy's credentials towards the broker, or null */
    public UpstreamChannelInitializer(ProxyConnection connection, TlsHandlerFactory tls, int maxFrameBytes, SaslClientConfig sasl,
                                      Duration saslTimeout) {
        this.saslTimeout = saslTimeout;
        this.connection = connection;
        this.tls = tls;
        this.maxFrameBytes = maxFrameBytes;
        this.sasl = sasl;
    }

    @Override
    protected void initChannel(SocketChannel ch) {
        ChannelPipeline p = ch.pipeline();
        if (tls != null) {
            p.addLast("tls", tls.create(ch));
        }
        p.addLast("bytes", new ByteCounter(connection.metrics()::bytesFromBroker, connection.metrics()::bytesToBroker));
        p.addLast("frame", new FrameDecoder(maxFrameBytes));
        p.addLast("decode", new ResponseDecoder(connection.tracker()));
        p.addLast("encode", FrameEncoder.INSTANCE);
        if (sasl != null) {
            p.addLast("auth", new UpstreamAuthenticator(connection, sasl, saslTimeout));
        }
        p.addLast("backend", new BackendHandler(connection));
    }
}
