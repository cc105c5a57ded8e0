package io.sluice.bridge.http;

import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.ArrayDeque;
import java.util.Base64;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.Consumer;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.NullNode;
import com.fasterxml.jackson.databind.node.TextNode;

import io.netty.buffer.ByteBufUtil;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.handler.codec.http.FullHttpRequest;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaderValues;
import io.netty.handler.codec.http.HttpHeaders;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpRequest;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpUtil;
import io.netty.handler.codec.http.HttpVersion;
import io.netty.handler.codec.http.QueryStringDecoder;
import io.netty.util.ReferenceCountUtil;
import io.sluice.bridge.auth.Principal;
import io.sluice.bridge.config.HttpConfig;
import io.sluice.bridge.format.ExactJson;
import io.sluice.bridge.protocol.ClientRequest;
import io.sluice.bridge.protocol.ErrorCodes;
import io.sluice.bridge.protocol.PayloadFormat;
import io.sluice.bridge.protocol.RequestRefusedException;
import io.sluice.bridge.protocol.ServerMessages;
import io.sluice.bridge.session.Publishes;
import io.sluice.bridge.session.Session;
import io.sluice.bridge.session.SessionServices;
import io.sluice.flow.Closing;
import io.sluice.flow.WritabilityGate;

/**
 * {@code POST|DELETE {server.path}/session} and {@code POST {server.path}/publish}, with their CORS preflights
 * (docs/bridge-http.md). One per connection. Answers go out in the order the requests came, whatever order they
 * complete in (a publish waits for Kafka, a cookie for the token's validation), so pipelined requests get their
 * answers as HTTP/1.1 requires; what arrives behind an unanswered request (other paths, an upgrade) is held here until
 * the answers before it are written, and reading stops while too many are waiting. Requests for other paths pass on.
 */
public final class HttpRoutes extends ChannelInboundHandlerAdapter {

    public static final String NAME = "http-routes";

    // One JSON value and nothing after it, read as a WebSocket publish's payload is (ClientRequests): exact numbers,
    // no key twice. The body is bounded by server.maxInboundMessageBytes; nesting is bounded as on WebSocket.
    private static final ExactJson JSON = ExactJson.withDepth(64);

    private final String serverPath;
    private final String cookiePath;
    private final HttpConfig config;
    private final SessionServices services;
    private final Origins origins;
    private final HttpCredentials credentials;
    private final KeepAlive keepAlive;
    private final int maxWaiting;
    private final ArrayDeque<Slot> slots = new ArrayDeque<>();
    private ChannelHandlerContext ctx;
    private Publishes publishes;
    private boolean closing;
    private boolean paused;
    // The last token this connection validated: a keep-alive client publishing repeatedly sends the same one.
    private String validatedToken;
    private Principal validatedPrincipal;

    public HttpRoutes(String serverPath, HttpConfig config, SessionServices services, Origins origins, KeepAlive keepAlive) {
        this(serverPath, config, services, origins, keepAlive, null);
    }

    /** @param publishes the connection's, shared by its HTTP/2 streams; null: one of this connection's own */
    public HttpRoutes(String serverPath, HttpConfig config, SessionServices services, Origins origins, KeepAlive keepAlive,
                      Publishes publishes) {
        this.publishes = publishes;
        this.serverPath = serverPath.endsWith("/") ? serverPath.substring(0, serverPath.length() - 1) : serverPath;
        this.cookiePath = serverPath;
        this.config = config;
        this.services = services;
        this.origins = origins;
        this.credentials = new HttpCredentials(services.requests().maxTokenBytes(), origins, config.cookieSecure());
        this.keepAlive = keepAlive;
        this.maxWaiting = services.requests().publishesInFlight() + 16;
    }

    /** One request's place in the answer order: its answer once known, or a message of another path to pass on. */
    private static final class Slot {
        final Route route;
        final HttpVersion version;
        final HttpHeaders requestHeaders;
        final boolean keepAlive;
        final Object passOn;
        FullHttpResponse response;
        boolean closeAfter;

        Slot(Route route, HttpRequest request, Object passOn) {
            this.route = route;
            this.version = request == null ? HttpVersion.HTTP_1_1 : request.protocolVersion();
            this.requestHeaders = request == null ? null : request.headers();
            this.keepAlive = request == null || HttpUtil.isKeepAlive(request);
            this.passOn = passOn;
        }

        boolean done() {
            return passOn != null || response != null;
        }
    }

    @Override
    public void handlerAdded(ChannelHandlerContext ctx) {
        this.ctx = ctx;
        if (publishes == null) {
            publishes = new Publishes(services, ctx.channel());
        }
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
        if (closing) {
            ReferenceCountUtil.release(msg);
            return;
        }
        if (msg instanceof BodyLimit.TooLarge tooLarge) {
            Slot slot = open(Route.of(serverPath, tooLarge.head().uri()), tooLarge.head());
            slot.closeAfter = true;
            answer(slot, error(slot, HttpResponseStatus.REQUEST_ENTITY_TOO_LARGE, ErrorCodes.MALFORMED, "the body is larger than"
                    + " server.maxInboundMessageBytes (" + (tooLarge.announced() >= 0 ? tooLarge.announced() + " > " : "")
                    + "the limit); nothing was published", -1));
            return;
        }
        if (msg instanceof FullHttpRequest request && config.enabled()) {
            Route route = Route.of(serverPath, request.uri());
            if (route != null) {
                try {
                    serve(request, route);
                }
                finally {
                    request.release();
                }
                return;
            }
        }
        if (slots.isEmpty()) {
            ctx.fireChannelRead(msg);
            return;
        }
        // Behind an unanswered request: passed on in turn, so that its answer (a file, an upgrade) does not overtake.
        slots.add(new Slot(null, null, msg));
        bound();
    }

    private Slot open(Route route, HttpRequest request) {
        if (slots.isEmpty()) {
            keepAlive.busy();
        }
        Slot slot = new Slot(route, request, null);
        slots.add(slot);
        bound();
        return slot;
    }

    private void serve(FullHttpRequest request, Route route) {
        Slot slot = open(route, request);
        HttpMethod method = request.method();
        if (method.equals(HttpMethod.OPTIONS)) {
            answer(slot, preflight(slot, route));
        }
        else if (!route.methods.contains(method)) {
            FullHttpResponse response = error(slot, HttpResponseStatus.METHOD_NOT_ALLOWED, ErrorCodes.MALFORMED,
                    method + " is not served here; use " + route.allow(), -1);
            response.headers().set(HttpHeaderNames.ALLOW, route.allow());
            answer(slot, response);
        }
        else if (route == Route.SESSION && method.equals(HttpMethod.DELETE)) {
            FullHttpResponse response = Answers.empty(slot.version, HttpResponseStatus.NO_CONTENT);
            response.headers().set(HttpHeaderNames.SET_COOKIE, SessionCookie.cleared(cookiePath, config.cookieSecure()));
            answer(slot, response);
        }
        else if (route == Route.SESSION) {
            startSession(slot, request);
        }
        else {
            publish(slot, request);
        }
    }

    private FullHttpResponse preflight(Slot slot, Route route) {
        FullHttpResponse response = Answers.empty(slot.version, HttpResponseStatus.NO_CONTENT);
        if (origins.corsAllowed(slot.requestHeaders.get(HttpHeaderNames.ORIGIN))) {
            response.headers().set(HttpHeaderNames.ACCESS_CONTROL_ALLOW_METHODS, route.allow())
                    .set(HttpHeaderNames.ACCESS_CONTROL_ALLOW_HEADERS, "Authorization, Content-Type, " + HttpCredentials.REQUEST_HEADER)
                    .set(HttpHeaderNames.ACCESS_CONTROL_MAX_AGE, 600);
        }
        return response;
    }

    /** Exchanges the bearer token of the header for the cookie: 204 with {@code Set-Cookie}, or 401 without one. */
    private void startSession(Slot slot, FullHttpRequest request) {
        HttpCredentials.Result found = credentials.of(request);
        if (found instanceof HttpCredentials.Refused refused) {
            answer(slot, error(slot, refused));
            return;
        }
        HttpCredentials.Token token = (HttpCredentials.Token) found;
        if (token.fromCookie()) {
            answer(slot, error(slot, HttpResponseStatus.UNAUTHORIZED, ErrorCodes.INVALID_TOKEN,
                    "POST .../session exchanges Authorization: Bearer <token> for the cookie; send the header", -1));
            return;
        }
        if (!SessionCookie.fits(token.token())) {
            answer(slot, error(slot, HttpResponseStatus.BAD_REQUEST, ErrorCodes.MALFORMED,
                    "the token has characters a cookie cannot carry; send it as Authorization: Bearer instead", -1));
            return;
        }
        authenticate(slot, token.token(), principal -> {
            long maxAge = principal.expiresAt() == null ? -1
                    : Math.max(0, (principal.expiresAt().toEpochMilli() - System.currentTimeMillis()) / 1000);
            FullHttpResponse response = Answers.empty(slot.version, HttpResponseStatus.NO_CONTENT);
            response.headers().set(HttpHeaderNames.SET_COOKIE, SessionCookie.set(token.token(), cookiePath, maxAge, config.cookieSecure()));
            answer(slot, response);
        });
    }

    private void publish(Slot slot, FullHttpRequest request) {
        String endpoint;
        try {
            endpoint = endpoint(request.uri());
        }
        catch (RequestRefusedException e) {
            answer(slot, error(slot, e));
            return;
        }
        HttpCredentials.Result found = credentials.of(request);
        if (found instanceof HttpCredentials.Refused refused) {
            answer(slot, error(slot, refused));
            return;
        }
        ClientRequest.Publish publish;
        try {
            publish = payload(endpoint, request);
        }
        catch (RequestRefusedException e) {
            answer(slot, error(slot, e));
            return;
        }
        catch (UnsupportedType e) {
            answer(slot, error(slot, HttpResponseStatus.UNSUPPORTED_MEDIA_TYPE, ErrorCodes.MALFORMED, e.getMessage(), -1));
            return;
        }
        authenticate(slot, ((HttpCredentials.Token) found).token(), principal -> {
            try {
                publishes.publish(principal, publish, outcome -> {
                    if (outcome instanceof Publishes.Acked acked) {
                        answer(slot, Answers.json(slot.version, HttpResponseStatus.OK,
                                ServerMessages.ack(null, acked.endpoint(), acked.epoch(), acked.seq())));
                    }
                    else if (outcome instanceof Publishes.Failed failed) {
                        answer(slot, error(slot, Answers.status(failed.code()), failed.code(), failed.message(), -1));
                    }
                });
            }
            catch (RequestRefusedException e) {
                answer(slot, error(slot, e));
            }
        });
    }

    /** The one {@code endpoint} query parameter; any other parameter (tokens aside: see {@link HttpCredentials}) is refused. */
    private String endpoint(String uri) throws RequestRefusedException {
        Map<String, List<String>> query = new QueryStringDecoder(uri).parameters();
        for (Map.Entry<String, List<String>> parameter : query.entrySet()) {
            String name = parameter.getKey();
            if (!name.equals("endpoint") && !name.equals("token") && !name.equals("access_token") && !name.equals("jwt")) {
                throw new RequestRefusedException(ErrorCodes.MALFORMED, "unknown query parameter '" + bounded(name) + "'", null);
            }
        }
        List<String> endpoints = query.getOrDefault("endpoint", List.of());
        if (endpoints.size() != 1) {
            throw new RequestRefusedException(ErrorCodes.MALFORMED, endpoints.isEmpty()
                    ? "name the endpoint: publish?endpoint=/..." : "endpoint given " + endpoints.size() + " times; publish takes one", null);
        }
        String endpoint = endpoints.get(0);
        if (endpoint.getBytes(StandardCharsets.UTF_8).length > services.requests().maxEndpointBytes()) {
            throw new RequestRefusedException(ErrorCodes.MALFORMED, "the endpoint is longer than requests.maxEndpointBytes ("
                    + services.requests().maxEndpointBytes() + ")", null);
        }
        return endpoint;
    }

    private static String bounded(String name) {
        return name.length() > 64 ? name.substring(0, 64) + "..." : name;
    }

    private static final class UnsupportedType extends Exception {
        private static final long serialVersionUID = 1L;

        UnsupportedType(String message) {
            super(message, null, false, false);
        }
    }

    /**
     * The body as a WebSocket publish would carry it, by {@code Content-Type}: JSON (must parse), text (must be UTF-8),
     * bytes (carried as base64, as a WebSocket client sends them); no type and no body is a tombstone.
     */
    private static ClientRequest.Publish payload(String endpoint, FullHttpRequest request) throws RequestRefusedException, UnsupportedType {
        String contentType = request.headers().get(HttpHeaderNames.CONTENT_TYPE);
        int length = request.content().readableBytes();
        if (contentType == null) {
            if (length == 0) {
                return new ClientRequest.Publish(null, endpoint, PayloadFormat.NONE, NullNode.getInstance());
            }
            throw new UnsupportedType("a body needs a Content-Type: application/json, text/plain or application/octet-stream");
        }
        String[] parts = contentType.split(";");
        String type = parts[0].strip().toLowerCase(Locale.ROOT);
        for (int i = 1; i < parts.length; i++) {
            String parameter = parts[i].strip().toLowerCase(Locale.ROOT).replace("\"", "");
            if (parameter.startsWith("charset=") && !parameter.equals("charset=utf-8") && !parameter.equals("charset=us-ascii")) {
                throw new UnsupportedType("only UTF-8 bodies are accepted");
            }
        }
        byte[] body = ByteBufUtil.getBytes(request.content());
        switch (type) {
            case "application/json": {
                try {
                    JsonNode json = JSON.read(body);
                    if (json == null || json.isMissingNode()) {
                        throw new RequestRefusedException(ErrorCodes.INVALID_PAYLOAD, "the body is empty; an application/json body must be one JSON value", null);
                    }
                    return new ClientRequest.Publish(null, endpoint, PayloadFormat.JSON, json);
                }
                catch (java.io.IOException e) {
                    throw new RequestRefusedException(ErrorCodes.INVALID_PAYLOAD, "the body is not one JSON value: "
                            + firstLine(e.getMessage()), null);
                }
            }
            case "text/plain": {
                try {
                    String text = StandardCharsets.UTF_8.newDecoder().onMalformedInput(CodingErrorAction.REPORT)
                            .onUnmappableCharacter(CodingErrorAction.REPORT).decode(ByteBuffer.wrap(body)).toString();
                    return new ClientRequest.Publish(null, endpoint, PayloadFormat.TEXT, TextNode.valueOf(text));
                }
                catch (CharacterCodingException e) {
                    throw new RequestRefusedException(ErrorCodes.INVALID_PAYLOAD, "a text/plain body must be UTF-8", null);
                }
            }
            case "application/octet-stream":
                return new ClientRequest.Publish(null, endpoint, PayloadFormat.BASE64, TextNode.valueOf(Base64.getEncoder().encodeToString(body)));
            default:
                throw new UnsupportedType("Content-Type " + bounded(type) + " is not accepted: use application/json, text/plain or application/octet-stream");
        }
    }

    private static String firstLine(String message) {
        if (message == null) {
            return "unreadable";
        }
        int newline = message.indexOf('\n');
        return newline < 0 ? message : message.substring(0, newline);
    }

    /**
     * Validates the token (reusing the last one this connection validated while it lasts) and runs {@code then} on the
     * event loop with its principal; answers 401 or, when the node is too busy to validate, 503 with Retry-After.
     */
    private void authenticate(Slot slot, String token, Consumer<Principal> then) {
        if (token.equals(validatedToken) && !expired(validatedPrincipal)) {
            then.accept(validatedPrincipal);
            return;
        }
        // The WebSocket connect's validation (Session.validate): the same refusals, metrics and rate-limited logs.
        Session.validate(services, token, ctx.channel()).thenAccept(verdict -> ctx.executor().execute(() -> {
            if (closing || !ctx.channel().isActive()) {
                return;
            }
            if (verdict.busy()) {
                answer(slot, error(slot, HttpResponseStatus.SERVICE_UNAVAILABLE, ErrorCodes.BUSY,
                        "the node is busy validating tokens; retry after a backoff", Answers.DEFAULT_RETRY_MILLIS));
                return;
            }
            if (verdict.refused() != null) {
                FullHttpResponse response = error(slot, HttpResponseStatus.UNAUTHORIZED, ErrorCodes.INVALID_TOKEN, verdict.refused(), -1);
                response.headers().set(HttpHeaderNames.WWW_AUTHENTICATE, "Bearer error=\"invalid_token\"");
                answer(slot, response);
                return;
            }
            validatedToken = token;
            validatedPrincipal = verdict.principal();
            keepAlive.authenticated();
            then.accept(verdict.principal());
        }));
    }

    private static boolean expired(Principal principal) {
        return principal.expiresAt() != null && !principal.expiresAt().isAfter(Instant.now());
    }

    private FullHttpResponse error(Slot slot, HttpCredentials.Refused refused) {
        return error(slot, refused.status(), refused.code(), refused.message(), -1);
    }

    private FullHttpResponse error(Slot slot, RequestRefusedException e) {
        HttpResponseStatus status = Answers.status(e.code());
        long retry = e.retryAfterMillis() >= 0 || !status.equals(HttpResponseStatus.TOO_MANY_REQUESTS)
                ? e.retryAfterMillis() : Answers.DEFAULT_RETRY_MILLIS;
        return error(slot, status, e.code(), e.getMessage(), retry);
    }

    private static FullHttpResponse error(Slot slot, HttpResponseStatus status, String code, String message, long retryAfterMillis) {
        return Answers.error(slot.version, status, code, message, retryAfterMillis);
    }

    /** The slot's answer is known: written once every earlier one is. */
    private void answer(Slot slot, FullHttpResponse response) {
        if (closing || !slots.contains(slot)) {
            response.release();
            return;
        }
        slot.response = response;
        drain();
    }

    private void drain() {
        while (!slots.isEmpty() && slots.peek().done() && !closing) {
            Slot slot = slots.poll();
            if (slot.passOn != null) {
                ctx.fireChannelRead(slot.passOn);
                continue;
            }
            FullHttpResponse response = slot.response;
            origins.addCorsHeaders(slot.requestHeaders, response.headers());
            boolean close = slot.closeAfter || !slot.keepAlive;
            if (close) {
                response.headers().set(HttpHeaderNames.CONNECTION, HttpHeaderValues.CLOSE);
            }
            else if (slot.version.equals(HttpVersion.HTTP_1_0)) {
                response.headers().set(HttpHeaderNames.CONNECTION, HttpHeaderValues.KEEP_ALIVE);
            }
            if (slot.route != null) {
                services.metrics().httpRequest(slot.route.label, response.status().code());
            }
            ChannelFuture written = ctx.writeAndFlush(response);
            if (close) {
                closing = true;
                releaseWaiting();
                // The client may still be sending (an oversized body): it is discarded until it stops or the grace ends.
                if (slot.closeAfter) {
                    Closing.lingerAfter(ctx.channel(), written, Closing.DEFAULT_GRACE);
                }
                else {
                    Closing.closeOnceDone(ctx.channel(), written, Closing.DEFAULT_GRACE);
                }
                return;
            }
        }
        if (paused && slots.size() <= maxWaiting / 2) {
            paused = false;
            WritabilityGate.resumeReading(ctx.channel(), this);
        }
        if (slots.isEmpty()) {
            keepAlive.idle();
        }
    }

    /** Too many requests waiting for their turn: no more are read until they drain. */
    private void bound() {
        if (!paused && slots.size() >= maxWaiting) {
            paused = true;
            WritabilityGate.pauseReading(ctx.channel(), this);
        }
    }

    private void releaseWaiting() {
        for (Slot slot : slots) {
            if (slot.passOn != null) {
                ReferenceCountUtil.release(slot.passOn);
            }
            if (slot.response != null) {
                slot.response.release();
            }
        }
        slots.clear();
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) throws Exception {
        closing = true;
        releaseWaiting();
        super.channelInactive(ctx);
    }
}
