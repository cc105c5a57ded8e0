package io.sluice.bridge.server;

import java.time.Duration;
import java.util.List;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import io.netty.channel.Channel;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelPipeline;
import io.netty.channel.WriteBufferWaterMark;
import io.netty.channel.group.ChannelGroup;
import io.netty.channel.socket.SocketChannel;
import io.netty.handler.codec.http.HttpDecoderConfig;
import io.netty.handler.codec.http.HttpObjectAggregator;
import io.netty.handler.codec.http.HttpServerCodec;
import io.netty.handler.codec.http2.Http2StreamChannel;
import io.netty.handler.codec.http2.Http2StreamFrameToHttpObjectCodec;
import io.netty.handler.ssl.SslContext;
import io.sluice.bridge.config.OutboundConfig;
import io.sluice.bridge.config.AddressBlock;
import io.sluice.bridge.config.ConnectionsConfig;
import io.sluice.bridge.config.HttpConfig;
import io.sluice.bridge.http.AnswerOrder;
import io.sluice.bridge.http.BodyBudget;
import io.sluice.bridge.http.BodyLimit;
import io.sluice.bridge.http.HttpCredentials;
import io.sluice.bridge.http.Http2Connections;
import io.sluice.bridge.http.HttpRoutes;
import io.sluice.bridge.http.KeepAlive;
import io.sluice.bridge.http.Origins;
import io.sluice.bridge.http.RequestDeadline;
import io.sluice.bridge.http.StreamErrors;
import io.sluice.bridge.http.StreamRequest;
import io.sluice.bridge.http.StreamRoute;
import io.sluice.bridge.http.StreamStarter;
import io.sluice.bridge.config.ServerConfig;
import io.sluice.bridge.metrics.BridgeMetrics;
import io.sluice.bridge.session.Publishes;
import io.sluice.bridge.session.Session;
import io.sluice.bridge.session.SessionServices;
import io.sluice.bridge.web.StaticContent;
import io.sluice.bridge.web.StaticFileHandler;
import io.sluice.bridge.websocket.WebSocketPipeline;
import io.sluice.flow.WritabilityGate;

/**
 * A connection's pipeline, top to bottom as data arrives:
 * <pre>
 * (accept)      ConnectionAdmission: the node's and the peer's connection, handshake and rate limits; refused
 *               connections are closed before anything is read. Starts the handshake deadline
 * writability-gate  WritabilityGate: no socket read while the connection is above outbound.highWaterMarkBytes;
 *               unwritable for outbound.maxSlowTime without a pause: closed (any stage: HTTP, before and after connect)
 * tls           TLS (wss://), only when server.tls is set
 * alpn / h2c-preface  with http.http2: the protocol the client chose by ALPN (h2 or http/1.1), or without TLS whether
 *               its first bytes are the HTTP/2 preface (h2c by prior knowledge); then the HTTP/2 pipeline (below the
 *               table) or the HTTP/1.1 one (the table), and this handler leaves
 * frames        websocket.EncodedFrames: where the session writes messages' pre-encoded frames (and an HTTP/1.1 event
 *               stream its chunks), skipping the handlers below
 * http          HTTP/1.1 codec, only until the upgrade (then Netty swaps in the WebSocket frame codec); request line
 *               and header block bounded by connections.maxRequestLineBytes/maxHeaderBytes
 * http-body     BodyLimit (http.enabled): the bodies of {path}/session and {path}/publish requests joined, up to
 *               server.maxInboundMessageBytes (413 on Content-Length before buffering, or on the running size)
 * handshake     HTTP requests, aggregated (small: only upgrades and GETs are expected; joined requests pass)
 * held          WritabilityGate.holdingDecoded(): requests (then WebSocket frames, pings included) already read are
 *               passed on only while the connection is writable, so one read of pipelined GETs is not answered
 *               all at once
 * guard         UpgradeGuard: unreadable or oversized requests answered and closed; Origin policy and forwarded
 *               client limits for upgrades
 * http-order    AnswerOrder (http.enabled): the answers of the next handler's requests leave in request order; what
 *               is pipelined behind an unanswered one waits here for its turn
 * http-routes   HttpRoutes (http.enabled): POST/DELETE {path}/session, POST {path}/publish and their preflights
 * websocket     WebSocketPipeline.upgrade(): the upgrade on the WebSocket path; then frames: ping/pong and close
 *               answered here, a frame over the limit closes with 1009 (decided on its header, before the payload is
 *               buffered): until connect, one that fits a connect (PreConnectLimit), then maxInboundMessageBytes.
 *               Requests for other paths go on to sse-route
 * sse-route     StreamRoute (http.enabled): GET {path}/sse, its credentials read as HttpRoutes reads them; the
 *               StreamStarter answers an error or takes the connection over as an event stream (then 'http' is
 *               replaced by a handler that drops what the client sends, and events are written at 'frames' as HTTP
 *               chunks); other methods there: 405
 * static        plain GET/HEAD of the client library and pages (StaticContent); 404 when there is none
 * fragments     continuation frames joined into one message, under the same size limit
 * session       websocket.SessionHandler: JSON requests to the Session, which writes through a WebSocketWire;
 *               messages out are written at 'frames', as pre-encoded frames
 * </pre>
 * Once a WebSocket upgrade completes, http-body, guard, http-order, http-routes, sse-route and static leave (Netty
 * removes the codec, the aggregator and its handshake handlers): an open WebSocket keeps writability-gate, tls,
 * frames, the frame codec, held, websocket, fragments and session.
 * An HTTP/2 connection instead has Netty's frame codec ('h2', with the node's SETTINGS and hostile-frame limits), the
 * stream multiplexer ('h2-streams') and the idle deadline ('h2-idle', {@link Http2Connections}); each stream is a child
 * channel with h2-request ({@link StreamRequest}: the request's deadline and its share of the connection's body budget),
 * http (frames to HTTP objects), http-body, handshake, guard, http-order, http-routes, sse-route and static as above.
 * The streams share the connection's admission (its handshake deadline and slot, until a request completes
 * authenticated) and its {@code Publishes} (the in-flight bounds).
 */
final class BridgeChannelInitializer extends ChannelInitializer<SocketChannel> {

    private static final Logger LOG = LoggerFactory.getLogger(BridgeChannelInitializer.class);
    private static final int MAX_HANDSHAKE_BYTES = 16 * 1024;
    static final String HELD = "held";
    // The HTTP/1.1 handlers that have nothing to do once the connection is a WebSocket (removeHttpOnly).
    private static final List<String> HTTP_ONLY = List.of(BodyLimit.NAME, "guard", AnswerOrder.NAME, HttpRoutes.NAME, StreamRoute.NAME, "static");

    private final ServerConfig server;
    private final SslContext tls;
    private final SessionServices services;
    private final ChannelGroup channels;
    private final StaticContent content;
    private final ConnectionsConfig limits;
    private final List<AddressBlock> trustedProxies;
    private final ConnectionGate gate;
    private final RefusalLog refusals = new RefusalLog();
    private final WebSocketPipeline websocket;
    private final HttpConfig http;
    private final Origins origins;
    private final HttpCredentials credentials;
    // GET {path}/sse; null when http.enabled is false.
    private final StreamStarter streams;

    /** @param tls the listener's TLS context, or null for plain ws:// */
    BridgeChannelInitializer(ServerConfig server, ConnectionsConfig limits, HttpConfig http, SslContext tls, SessionServices services,
                             ChannelGroup channels, StaticContent content, StreamStarter streams) {
        this.server = server;
        this.streams = streams;
        this.http = http;
        this.origins = Origins.forListener(limits.allowedOrigins(), tls != null, http);
        this.credentials = new HttpCredentials(services.requests().maxTokenBytes(), origins, http.cookieSecure());
        this.limits = limits;
        this.trustedProxies = limits.trustedProxyBlocks();
        this.gate = new ConnectionGate(limits, System::nanoTime);
        this.tls = tls;
        this.services = services;
        this.channels = channels;
        this.content = content;
        this.websocket = new WebSocketPipeline(server, services);
    }

    /**
     * Every listener's start (this one's and the MQTT ones'): the connection admitted by the node's gate, or closed and
     * null, then the writability gate first in its pipeline.
     */
    ConnectionAdmission admitAndGate(SocketChannel ch) {
        BridgeMetrics metrics = services.metrics();
        ConnectionAdmission admission = ConnectionAdmission.admit(ch, gate, limits, trustedProxies, metrics, refusals);
        if (admission == null) {
            return null;
        }
        channels.add(ch);
        ch.pipeline().addLast(WritabilityGate.NAME, new WritabilityGate(services.outbound().maxSlowTime(),
                (channel, after) -> stuck(channel, after, metrics)));
        return admission;
    }

    @Override
    protected void initChannel(SocketChannel ch) {
        ConnectionAdmission admission = admitAndGate(ch);
        if (admission == null) {
            return;
        }
        ChannelPipeline p = ch.pipeline();
        Runnable http1 = () -> http1(ch, admission);
        Runnable http2 = () -> {
            // The connection's, shared by its streams: HTTP/1.1's per-connection bounds hold across them (docs/security.md).
            Publishes publishes = new Publishes(services, ch);
            BodyBudget budget = new BodyBudget(admission::handshaking, server.maxInboundMessageBytes(), services.requests().publishBytesInFlight());
            Http2Connections.addTo(p, http, limits, stream -> stream(stream, admission, publishes, budget));
        };
        if (tls != null) {
            p.addLast("tls", tls.newHandler(ch.alloc()));
            if (http.http2()) {
                p.addLast(Alpn.NAME, new Alpn(http2, http1));
            }
            else {
                http1.run();
            }
        }
        else if (http.http2()) {
            p.addLast(PriorKnowledge.NAME, new PriorKnowledge(http2, http1));
        }
        else {
            http1.run();
        }
    }

    /** The HTTP/1.1 pipeline (WebSocket upgrades included), at the end of the connection's. */
    private void http1(SocketChannel ch, ConnectionAdmission admission) {
        BridgeMetrics metrics = services.metrics();
        ChannelPipeline p = ch.pipeline();
        websocket.addFrames(p);
        p.addLast("http", new HttpServerCodec(new HttpDecoderConfig()
                .setMaxInitialLineLength(limits.maxRequestLineBytes())
                .setMaxHeaderSize(limits.maxHeaderBytes())));
        if (http.enabled()) {
            p.addLast(BodyLimit.NAME, new BodyLimit(server.path(), server.maxInboundMessageBytes(), services.metrics().bodyBytes()));
        }
        p.addLast("handshake", new HttpObjectAggregator(MAX_HANDSHAKE_BYTES));
        p.addLast(HELD, WritabilityGate.holdingDecoded());
        p.addLast("guard", new UpgradeGuard(admission, limits, trustedProxies, metrics, refusals,
                streams != null ? StreamRoute.streamPath(server.path()) : null));
        if (http.enabled()) {
            addRoutes(p, admission, null);
        }
        p.addLast("websocket", websocket.upgrade());
        if (streams != null) {
            p.addLast(StreamRoute.NAME, new StreamRoute(server.path(), streams, credentials, origins, admission::upgraded));
        }
        p.addLast("static", new StaticFileHandler(content));
        websocket.addSession(ch, () -> {
            admission.upgraded();
            removeHttpOnly(p);
        });
    }

    /**
     * After the WebSocket upgrade, the handlers that only HTTP requests reach leave the pipeline: the codec before them
     * now decodes WebSocket frames, which they would pass on untouched while holding their state for the connection's
     * life (855 bytes of the heap per connection with their contexts: docs/bridge.md, "Memory per connection"). No
     * answer of theirs can be pending: an upgrade behind an unanswered request waits in http-order for its turn.
     */
    private static void removeHttpOnly(ChannelPipeline p) {
        for (String name : HTTP_ONLY) {
            if (p.context(name) != null) {
                p.remove(name);
            }
        }
    }

    /** http-order and http-routes, sharing the connection's (or stream's) keep-alive deadline. */
    private void addRoutes(ChannelPipeline p, KeepAlive keepAlive, Publishes publishes) {
        p.addLast(AnswerOrder.NAME, new AnswerOrder(HttpRoutes.ordered(server.path(), http), keepAlive, HttpRoutes.maxWaiting(services)));
        p.addLast(HttpRoutes.NAME, new HttpRoutes(server.path(), http, services, origins, keepAlive, publishes));
    }

    /**
     * One HTTP/2 stream: the HTTP/1.1 pipeline's HTTP routes behind Netty's frame-to-HTTP-object codec (named
     * {@code http} as on HTTP/1.1, so that an event stream replaces it the same way). No WebSocket: it is not offered
     * over HTTP/2 (no RFC 8441 extended CONNECT), so browsers open WebSockets on an HTTP/1.1 connection. The stream
     * writes through its own flow-controlled channel, whose writability the session follows as it follows a socket's.
     */
    private void stream(Http2StreamChannel stream, ConnectionAdmission admission, Publishes publishes, BodyBudget budget) {
        OutboundConfig outbound = services.outbound();
        stream.config().setWriteBufferWaterMark(new WriteBufferWaterMark(outbound.lowWaterMarkBytes(), outbound.highWaterMarkBytes()));
        ChannelPipeline p = stream.pipeline();
        p.addLast(StreamRequest.NAME, new StreamRequest(budget, server.maxInboundMessageBytes(), RequestDeadline.of(limits), services.metrics()));
        p.addLast("http", new Http2StreamFrameToHttpObjectCodec(true, true));
        if (http.enabled()) {
            p.addLast(BodyLimit.NAME, new BodyLimit(server.path(), server.maxInboundMessageBytes(), services.metrics().bodyBytes()));
        }
        p.addLast("handshake", new HttpObjectAggregator(MAX_HANDSHAKE_BYTES));
        p.addLast("guard", new UpgradeGuard(admission, limits, trustedProxies, services.metrics(), refusals,
                streams != null ? StreamRoute.streamPath(server.path()) : null));
        if (http.enabled()) {
            // The connection's deadline, busy while any stream answers a request (ConnectionAdmission.stream).
            addRoutes(p, admission.stream(stream), publishes);
        }
        if (streams != null) {
            // A stream started with a valid token takes the connection out of the handshake pool, as on HTTP/1.1.
            p.addLast(StreamRoute.NAME, new StreamRoute(server.path(), streams, credentials, origins, admission::upgraded));
        }
        p.addLast("static", new StaticFileHandler(content));
        p.addLast(StreamErrors.NAME, new StreamErrors());
    }

    /**
     * The connection stayed above the high-water mark for {@code outbound.maxSlowTime} without a pause: whatever
     * stage it is in, it is not reading what it asked for. Before the upgrade it is closed at once: nothing more would
     * reach it. After it, the session's own clock started no later and closes it with 4008 (a slow but reading client
     * learns why), within its grace; a session that already closed it is not counted twice.
     */
    private static void stuck(Channel channel, Duration limit, BridgeMetrics metrics) {
        // Either transport's session (WebSocket, SSE) closes its own slow client, with its close code.
        Session session = Session.of(channel);
        if (session != null && session.closesSlowClient()) {
            return;
        }
        boolean http2 = Http2Connections.isHttp2(channel);
        // HTTP/2: the sessions of its streams, if any, close them; the connection follows its last stream.
        if (http2 && Http2Connections.streamsCloseSlowClients(channel)) {
            return;
        }
        if (channel.isActive() && !Session.closingFor(channel)) {
            metrics.slowClientTimedOut();
            LOG.info("{}: closing connection: above outbound.highWaterMarkBytes for outbound.maxSlowTime {} without draining",
                    channel.remoteAddress(), limit);
        }
        if (http2) {
            Http2Connections.closeNow(channel);
        }
        else {
            channel.close();
        }
    }
}
