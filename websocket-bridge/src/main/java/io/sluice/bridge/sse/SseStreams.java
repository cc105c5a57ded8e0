package io.sluice.bridge.sse;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelPipeline;
import io.netty.handler.codec.http.FullHttpRequest;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaderValues;
import io.netty.handler.codec.http.HttpHeaders;
import io.netty.handler.codec.http.DefaultHttpHeaders;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpVersion;
import io.netty.handler.codec.http2.Http2StreamChannel;
import io.sluice.bridge.auth.Principal;
import io.sluice.bridge.config.HttpConfig;
import io.sluice.bridge.protocol.ClientRequest;
import io.sluice.bridge.protocol.ClientRequests;
import io.sluice.bridge.protocol.CloseCodes;
import io.sluice.bridge.protocol.ErrorCodes;
import io.sluice.bridge.protocol.RequestRefusedException;
import io.sluice.bridge.session.Inbound;
import io.sluice.bridge.session.Session;
import io.sluice.bridge.session.SessionServices;
import io.sluice.bridge.session.TokenVerdict;
import io.sluice.flow.Closing;
import io.sluice.bridge.http.Answers;
import io.sluice.bridge.http.Origins;
import io.sluice.bridge.http.StreamRoute;
import io.sluice.bridge.http.StreamStarter;

/**
 * {@code GET {server.path}/sse} (docs/bridge-http.md): everything that can be refused is refused with an HTTP status
 * before the 200 (the query, {@code Last-Event-ID}, the token, each endpoint's existence and permission, the recover
 * positions), then the connection becomes the stream: a {@link Session} writing through an {@link SseWire}, so that
 * subscriptions, recovery, conflation, limits and token expiry are the WebSocket session's own.
 */
public final class SseStreams implements StreamStarter {

    /** The pipeline context next to the socket where pre-encoded frames are written (websocket.EncodedFrames). */
    private static final String FRAMES = "frames";
    /**
     * The HTTP codec (HTTP/1.1, or an HTTP/2 stream's frame-to-HTTP-object codec, which has the same name), replaced by
     * {@link StreamConnection} once the stream starts.
     */
    private static final String HTTP_CODEC = "http";
    private static final long READER_STARTING_RETRY_MILLIS = 1000;
    private static final Inbound NO_INBOUND_LIMIT = new Inbound() {
        @Override
        public void connecting() {
        }

        @Override
        public void connected() {
        }
    };

    private final SessionServices services;
    private final HttpConfig http;
    private final Origins origins;

    public SseStreams(SessionServices services, HttpConfig http, Origins origins) {
        this.services = services;
        this.http = http;
        this.origins = origins;
    }

    @Override
    public void start(ChannelHandlerContext ctx, FullHttpRequest request, String token) {
        Channel channel = ctx.channel();
        HttpHeaders cors = new DefaultHttpHeaders();
        origins.addCorsHeaders(request.headers(), cors);
        StreamQuery query;
        List<ClientRequest.Subscribe> subscribes;
        boolean resuming;
        try {
            query = StreamQuery.parse(request.uri(), http.maxEndpointsPerStream());
            if (query.endpoints().size() > services.maxSubscriptions()) {
                throw new RequestRefusedException(ErrorCodes.TOO_MANY_SUBSCRIPTIONS, "more endpoints than"
                        + " server.maxSubscriptionsPerConnection (" + services.maxSubscriptions() + ")", null);
            }
            String header = request.headers().get("Last-Event-ID");
            String id = header != null && !header.isEmpty() ? header : query.lastEventId();
            resuming = id != null && !id.isEmpty();
            List<List<ClientRequest.Position>> recover = positions(id, query.endpoints().size());
            subscribes = new ArrayList<>(query.endpoints().size());
            for (int i = 0; i < query.endpoints().size(); i++) {
                byte[] json = query.subscribe(i, recover.get(i)).toString().getBytes(StandardCharsets.UTF_8);
                ClientRequest parsed = ClientRequests.parse(Unpooled.wrappedBuffer(json), services.requests(), services.filters());
                subscribes.add((ClientRequest.Subscribe) parsed);
            }
        }
        catch (RequestRefusedException e) {
            refuse(ctx, cors, e);
            return;
        }
        Session.validate(services, token, channel).thenAccept(verdict -> channel.eventLoop().execute(() -> {
            if (!channel.isActive()) {
                return;
            }
            if (services.readerStartup().reading().isDone() || services.readerStartup().waitOver().isDone()) {
                validated(ctx, cors, query, subscribes, resuming, verdict);
            }
            else {
                // As a WebSocket subscribe during startup: wait for the reader, up to recovery.startupWait.
                services.readerStartup().waitOver().whenComplete((ignored, error) -> channel.eventLoop().execute(
                        () -> validated(ctx, cors, query, subscribes, resuming, verdict)));
            }
        }));
    }

    private List<List<ClientRequest.Position>> positions(String id, int endpoints) throws RequestRefusedException {
        if (id == null || id.isEmpty()) {
            List<List<ClientRequest.Position>> none = new ArrayList<>(endpoints);
            for (int i = 0; i < endpoints; i++) {
                none.add(List.of());
            }
            return none;
        }
        try {
            return EventIds.decode(id, endpoints, http.maxLastEventIdBytes());
        }
        catch (EventIds.MalformedIdException e) {
            throw new RequestRefusedException(ErrorCodes.MALFORMED, "Last-Event-ID: " + e.getMessage(), null);
        }
    }

    private void validated(ChannelHandlerContext ctx, HttpHeaders cors, StreamQuery query, List<ClientRequest.Subscribe> subscribes, boolean resuming,
                           TokenVerdict verdict) {
        Channel channel = ctx.channel();
        if (!channel.isActive()) {
            return;
        }
        if (verdict.busy()) {
            refuse(ctx, cors, new RequestRefusedException(ErrorCodes.BUSY, "the node is busy validating tokens; reconnect after a backoff",
                    null, READER_STARTING_RETRY_MILLIS));
            return;
        }
        if (verdict.refused() != null) {
            refuse(ctx, cors, new RequestRefusedException(ErrorCodes.INVALID_TOKEN, verdict.refused(), null));
            return;
        }
        Principal principal = verdict.principal();
        // An HTTP/2 stream is a channel of its own, written with frames; an HTTP/1.1 connection below its codec.
        EventOutput output = channel instanceof Http2StreamChannel ? new Http2Data(channel) : new Http1Chunks(channel.pipeline().context(FRAMES));
        SseWire wire = new SseWire(channel, output, query.endpoints(), http.heartbeat());
        Session session = new Session(channel, wire, services, NO_INBOUND_LIMIT);
        for (ClientRequest.Subscribe s : subscribes) {
            try {
                session.check(principal, s);
            }
            catch (RequestRefusedException e) {
                refuse(ctx, cors, resuming && e.code().equals(ErrorCodes.MALFORMED) && e.getMessage().contains("recover")
                        // The message would quote an epoch of the id: say what is wrong without it.
                        ? new RequestRefusedException(ErrorCodes.MALFORMED, "Last-Event-ID: a position does not fit endpoint "
                                + s.endpoint() + " (an epoch it does not cover, or too many epochs this node does not read)", null)
                        : e);
                return;
            }
        }
        String overSubjectLimit = session.admit(principal);
        if (overSubjectLimit != null) {
            // Nothing was taken: the session never opened.
            refuse(ctx, cors, new RequestRefusedException(ErrorCodes.TOO_MANY_CONNECTIONS, overSubjectLimit, null, READER_STARTING_RETRY_MILLIS));
            return;
        }
        Runnable leave = channel.attr(StreamRoute.LEAVE_HANDSHAKE).getAndSet(null);
        if (leave != null) {
            leave.run();
        }
        ChannelPipeline pipeline = channel.pipeline();
        pipeline.addAfter(HTTP_CODEC, StreamConnection.NAME, new StreamConnection(session, wire));
        pipeline.remove(HTTP_CODEC);
        wire.start(cors);
        session.openedWith(principal);
        for (ClientRequest.Subscribe s : subscribes) {
            try {
                session.subscribeChecked(s);
            }
            catch (RequestRefusedException e) {
                // Refused by a node limit met after the checks (groups, Kafka reads): the client retries the whole stream.
                session.close(CloseCodes.TRY_AGAIN_LATER, e.code() + ": " + e.getMessage());
                return;
            }
        }
    }

    /** Answers the request with the WebSocket error JSON and the status its code stands for, then closes. */
    private static void refuse(ChannelHandlerContext ctx, HttpHeaders cors, RequestRefusedException e) {
        HttpResponseStatus status = switch (e.code()) {
            case ErrorCodes.INVALID_TOKEN -> HttpResponseStatus.UNAUTHORIZED;
            case ErrorCodes.FORBIDDEN -> HttpResponseStatus.FORBIDDEN;
            case ErrorCodes.UNKNOWN_ENDPOINT -> HttpResponseStatus.NOT_FOUND;
            // A stream refused for load is retried later by the client as a whole, so both say when.
            case ErrorCodes.BUSY -> HttpResponseStatus.SERVICE_UNAVAILABLE;
            case ErrorCodes.RATE_LIMITED, ErrorCodes.TOO_MANY_CONNECTIONS -> HttpResponseStatus.TOO_MANY_REQUESTS;
            default -> HttpResponseStatus.BAD_REQUEST;
        };
        boolean retry = status == HttpResponseStatus.SERVICE_UNAVAILABLE || status == HttpResponseStatus.TOO_MANY_REQUESTS;
        FullHttpResponse response = Answers.error(HttpVersion.HTTP_1_1, status, e.code(), e.getMessage(),
                retry ? Math.max(1000, e.retryAfterMillis()) : e.retryAfterMillis());
        response.headers().add(cors).set(HttpHeaderNames.CONNECTION, HttpHeaderValues.CLOSE);
        if (status == HttpResponseStatus.UNAUTHORIZED) {
            // Only a token that was read and refused gets here (none at all is StreamRoute's 401), as on the other routes.
            response.headers().set(HttpHeaderNames.WWW_AUTHENTICATE, "Bearer error=\"invalid_token\"");
        }
        Closing.closeOnceDone(ctx.channel(), ctx.writeAndFlush(response), Closing.DEFAULT_GRACE);
    }
}
