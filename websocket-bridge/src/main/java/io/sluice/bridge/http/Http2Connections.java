package io.sluice.bridge.http;

import java.time.Duration;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelPipeline;
import io.netty.handler.codec.http2.Http2Exception;
import io.netty.handler.codec.http2.Http2FrameCodec;
import io.netty.handler.codec.http2.Http2FrameCodecBuilder;
import io.netty.handler.codec.http2.Http2MultiplexHandler;
import io.netty.handler.codec.http2.Http2Settings;
import io.netty.handler.codec.http2.Http2SettingsFrame;
import io.netty.handler.codec.http2.Http2StreamChannel;
import io.netty.handler.ssl.ApplicationProtocolNames;
import io.netty.util.concurrent.ScheduledFuture;
import io.sluice.bridge.config.ConnectionsConfig;
import io.sluice.bridge.config.HttpConfig;
import io.sluice.bridge.session.Session;
import io.sluice.flow.Closing;

/**
 * An HTTP/2 connection (ALPN {@code h2}, or h2c by prior knowledge): Netty's frame codec with the node's limits, and a
 * child channel per stream whose pipeline the caller builds (the HTTP routes, as on HTTP/1.1). The connection counts
 * once against the node's and the peer's connection limits (it is one socket); each event stream on it is a session.
 * Like an HTTP/1.1 connection it stays in the handshake pool, under {@code server.ConnectionAdmission}'s deadline
 * (running while none of its streams is answering a request), until a request completes authenticated (a valid
 * token's publish or session, an event stream started: {@code ConnectionAdmission.stream}); each stream's request
 * must be complete within the {@link RequestDeadline} and fit the connection's {@link BodyBudget}
 * ({@link StreamRequest}). Apart from that, a connection with no open stream for the {@link RequestDeadline} is closed
 * (GOAWAY, then the close), as an idle HTTP/1.1 keep-alive connection is.
 */
public final class Http2Connections {

    /** What ALPN offers with {@code http.http2}, most preferred first. */
    public static final List<String> ALPN_PROTOCOLS = List.of(ApplicationProtocolNames.HTTP_2, ApplicationProtocolNames.HTTP_1_1);
    /** The client's flow-control window for what it sends us, per stream: a publish body streams in at this pace. */
    static final int INITIAL_WINDOW_BYTES = 65_535;
    /**
     * RST_STREAM frames a client may send per window before the connection is closed: bounds the rapid-reset attack
     * (CVE-2023-44487), where each reset stream costs the server a request's work and no concurrency slot.
     */
    static final int MAX_RST_FRAMES = 200;
    static final int RST_WINDOW_SECONDS = 30;
    /** Empty DATA frames in a row (each costs a read and no bytes): more are a connection error. */
    static final int MAX_CONSECUTIVE_EMPTY_DATA_FRAMES = 2;

    private static final Logger LOG = LoggerFactory.getLogger(Http2Connections.class);
    private static final String CODEC = "h2";
    private static final String IDLE = "h2-idle";

    /** Whether {@code connection} speaks HTTP/2 (its pipeline was built here). */
    public static boolean isHttp2(Channel connection) {
        return connection.pipeline().get(IDLE) != null;
    }

    /**
     * Whether a stream of this HTTP/2 connection has a session already closing its slow client (with 4008): the
     * connection's socket is behind, so every stream on it is, and their sessions' clocks started no later. They end
     * their streams as on HTTP/1.1; the connection follows once none is left ({@link Idle}).
     */
    public static boolean streamsCloseSlowClients(Channel connection) {
        if (connection.pipeline().get(IDLE) instanceof Idle idle) {
            for (Channel stream : idle.streams) {
                Session session = Session.of(stream);
                if (session != null && session.closesSlowClient()) {
                    return true;
                }
            }
        }
        return false;
    }

    /**
     * Closes the connection below the HTTP/2 codec: no GOAWAY and no graceful wait for its streams, which a socket that
     * does not drain would only prolong.
     */
    public static void closeNow(Channel connection) {
        ChannelHandlerContext codec = connection.pipeline().context(CODEC);
        if (codec != null) {
            codec.close();
        }
        else {
            connection.close();
        }
    }

    private Http2Connections() {
    }

    /** Adds the HTTP/2 handlers at the end of {@code p}; {@code streams} sets up each stream's child channel. */
    public static void addTo(ChannelPipeline p, HttpConfig http, ConnectionsConfig limits, Consumer<Http2StreamChannel> streams) {
        Http2FrameCodec codec = Http2FrameCodecBuilder.forServer()
                .initialSettings(Http2Settings.defaultSettings()
                        .maxConcurrentStreams(http.maxConcurrentStreams())
                        .maxHeaderListSize(limits.maxHeaderBytes())
                        .initialWindowSize(INITIAL_WINDOW_BYTES))
                .decoderEnforceMaxRstFramesPerWindow(MAX_RST_FRAMES, RST_WINDOW_SECONDS)
                .decoderEnforceMaxConsecutiveEmptyDataFrames(MAX_CONSECUTIVE_EMPTY_DATA_FRAMES)
                .gracefulShutdownTimeoutMillis(Closing.DEFAULT_GRACE.toMillis())
                .validateHeaders(true)
                .build();
        Idle idle = new Idle(RequestDeadline.of(limits));
        p.addLast(CODEC, codec);
        p.addLast("h2-streams", new Http2MultiplexHandler(new ChannelInitializer<Http2StreamChannel>() {
            @Override
            protected void initChannel(Http2StreamChannel stream) {
                // First, so it sees every close, whichever handler starts it.
                stream.pipeline().addFirst("h2-reset-on-close", new ResetOnClose());
                idle.opened(stream);
                streams.accept(stream);
            }
        }));
        p.addLast(IDLE, idle);
    }

    /**
     * The idle deadline whenever no stream is open, from the preface on (before it, and until a request completes
     * authenticated, the handshake deadline holds too).
     */
    private static final class Idle extends ChannelInboundHandlerAdapter {

        private final Duration timeout;
        private Channel connection;
        private boolean prefaceRead;
        private final Set<Channel> streams = new HashSet<>();
        private ScheduledFuture<?> deadline;

        Idle(Duration timeout) {
            this.timeout = timeout;
        }

        @Override
        public void handlerAdded(ChannelHandlerContext ctx) {
            connection = ctx.channel();
        }

        @Override
        public void channelRead(ChannelHandlerContext ctx, Object msg) {
            // The codec checks that the preface is followed by SETTINGS: the first one read means both were.
            if (msg instanceof Http2SettingsFrame && !prefaceRead) {
                prefaceRead = true;
                if (streams.isEmpty()) {
                    schedule();
                }
            }
            ctx.fireChannelRead(msg);
        }

        /**
         * The last handler of the connection. An HTTP/2 error that reaches it the codec has already answered (GOAWAY
         * with its code, a rapid reset's ENHANCE_YOUR_CALM among them) and closes the connection for; closing here
         * first would send GOAWAY NO_ERROR instead. A client can cause one per connection at will, so it is logged at
         * DEBUG, not as Netty's WARN with a stack trace. Anything else closes the connection.
         */
        @Override
        public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
            LOG.debug("{}: HTTP/2 connection error: {}", ctx.channel().remoteAddress(), cause.toString());
            if (!(cause instanceof Http2Exception)) {
                ctx.close();
            }
        }

        void opened(Http2StreamChannel stream) {
            streams.add(stream);
            if (deadline != null) {
                deadline.cancel(false);
                deadline = null;
            }
            stream.closeFuture().addListener(f -> {
                streams.remove(stream);
                if (!streams.isEmpty() || !connection.isActive()) {
                    return;
                }
                if (!connection.isWritable()) {
                    // The last stream ended while the socket is behind (slow-client closes): nothing left to wait for.
                    closeNow(connection);
                }
                else if (prefaceRead) {
                    schedule();
                }
            });
        }

        private void schedule() {
            if (deadline != null) {
                deadline.cancel(false);
            }
            deadline = connection.eventLoop().schedule(() -> {
                if (streams.isEmpty() && connection.isActive()) {
                    LOG.debug("{}: closing HTTP/2 connection: no open stream for connections.handshakeTimeout {}",
                            connection.remoteAddress(), timeout);
                    // Through the codec: GOAWAY first, then the close.
                    connection.close();
                }
            }, timeout.toMillis(), TimeUnit.MILLISECONDS);
        }

        @Override
        public void channelInactive(ChannelHandlerContext ctx) throws Exception {
            if (deadline != null) {
                deadline.cancel(false);
            }
            super.channelInactive(ctx);
        }
    }
}
