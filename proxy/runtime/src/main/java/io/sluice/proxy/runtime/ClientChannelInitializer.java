package io.sluice.proxy.runtime;

import java.util.List;

import org.slf4j.LoggerFactory;
import org.slf4j.event.Level;

import io.netty.channel.Channel;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelPipeline;
import io.netty.channel.socket.SocketChannel;
import io.sluice.flow.WritabilityGate;
import io.sluice.proxy.codec.FrameDecoder;
import io.sluice.proxy.codec.ProtocolException;
import io.sluice.proxy.codec.FrameEncoder;
import io.sluice.proxy.codec.RequestDecoder;
import io.sluice.logging.RateLimitedLog;
import io.sluice.proxy.config.PreAuthenticationConfig;

/**
 * Assembles the pipeline of a client connection. Read top to bottom it is the request's path; responses
 * take it bottom to top:
 *
 * <pre>
 *   socket
 *   [sni]             on an SNI listener until the ClientHello picks the gateway: {@link SniRouter}, which then leaves
 *   gate              not read while answers above the high-water mark wait for the client to read them
 *   [tls]             TLS termination, when the gateway has it
 *   bytes             counts bytes for metrics and the connection's filters
 *   frame             int32-size framing, size limit (a lower one until the client authenticates)
 *   decode / encode   request header always, body only if a filter wants it; responses to bytes
 *   sequencer         responses leave in request order; latency per API
 *   filter-1..n       the virtual cluster's filters
 *   upstream          to the broker connection, under the proxy's correlation ids
 * </pre>
 */
public final class ClientChannelInitializer extends ChannelInitializer<SocketChannel> {

    private static final RateLimitedLog FILTER_CREATION_FAILED = new RateLimitedLog(LoggerFactory.getLogger(ClientChannelInitializer.class),
            Level.ERROR, RateLimitedLog.DEFAULT_INTERVAL);

    private final ConnectionSetup setup;

    public ClientChannelInitializer(ConnectionSetup setup) {
        this.setup = setup;
    }

    @Override
    protected void initChannel(SocketChannel ch) {
        assemble(ch, setup);
    }

    /**
     * Builds the pipeline above on {@code ch}, after any handlers it already has: as a port-per-broker connection is
     * accepted, or once an SNI connection's ClientHello has picked its gateway ({@link SniRouter}, which fires
     * channelActive into what was added).
     *
     * @return false when the connection was refused (a connection limit, filters that could not be made) and closed
     */
    public static boolean assemble(Channel ch, ConnectionSetup setup) {
        // Reads are off until the pipeline says otherwise, so a refused connection is closed unread.
        if (!setup.limiter().tryAccept(ch, setup.metrics())) {
            ch.close();
            return false;
        }
        ProxyConnection connection = new ProxyConnection(ch, setup.virtualCluster(), setup.gateway(), setup.metrics());
        connection.apiVersions(setup.apiVersions());
        connection.brokerTrouble(setup.brokerTrouble());
        setup.openConnections().add(connection);
        List<NamedFilter> filters;
        try {
            filters = setup.createFilters(connection);
        } catch (RuntimeException e) {
            // A plugin that cannot make its filter (or mixes generic and typed interfaces) fails every connection the
            // same way: one line per interval, not a stack trace per client.
            FILTER_CREATION_FAILED.log("virtual cluster {}: closing a new client connection, its filters could not be created: {}",
                    setup.virtualCluster(), e.toString());
            ch.close();
            return false;
        }
        connection.decodePolicy(new FilterChainDecodePolicy(filters));

        ChannelPipeline p = ch.pipeline();
        p.addLast(WritabilityGate.NAME, new WritabilityGate(setup.maxUnwritableTime(), (channel, limit) -> connection.close("client not reading",
                new ProtocolException(ProtocolException.Reason.CLIENT_NOT_READING, "the client left more than network.writeBufferHighWaterMark bytes of answers unread for network.maxUnwritableTime "
                        + limit.toMillis() + " ms"))));
        if (!setup.connectionsMaxIdle().isZero() && !setup.connectionsMaxIdle().isNegative()) {
            // Below TLS: the records that carry requests and answers are what counts as activity.
            p.addLast(IdleClose.NAME, new IdleClose(setup.connectionsMaxIdle(), connection));
        }
        if (setup.clientSslContext() != null) {
            p.addLast("tls", setup.clientSslContext().newHandler(ch.alloc()));
        }
        p.addLast("bytes", new ByteCounter(bytes -> {
            setup.metrics().bytesFromClient(bytes);
            connection.countFromClient(bytes);
        }, bytes -> {
            setup.metrics().bytesToClient(bytes);
            connection.countToClient(bytes);
        }));
        PreAuthenticationConfig preAuth = setup.preAuthentication();
        FrameDecoder frames = new FrameDecoder(setup.maxFrameBytes(), preAuth == null ? 0 : preAuth.maxFrameBytes());
        if (preAuth != null) {
            connection.awaitAuthentication(preAuth, frames);
        }
        p.addLast("frame", frames);
        p.addLast("encode", FrameEncoder.INSTANCE);
        p.addLast("decode", new RequestDecoder(connection.decodePolicy(), setup.maxFetchBytes()));
        p.addLast("sequencer", new ResponseSequencer(setup.metrics(), connection));
        for (int i = 0; i < filters.size(); i++) {
            NamedFilter f = filters.get(i);
            p.addLast("filter-" + i + "-" + f.name(), new FilterHandler(f, connection, setup.filterTimeout()));
        }
        p.addLast("upstream", new UpstreamForwarder(connection, setup.dialer()));
        return true;
    }
}
