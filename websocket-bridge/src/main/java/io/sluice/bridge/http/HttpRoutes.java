package io.sluice.bridge.http;

import java.util.function.Consumer;
import java.util.function.Predicate;

import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.handler.codec.http.FullHttpRequest;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaders;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpVersion;
import io.sluice.bridge.auth.Principal;
import io.sluice.bridge.config.HttpConfig;
import io.sluice.bridge.protocol.ClientRequest;
import io.sluice.bridge.protocol.ErrorCodes;
import io.sluice.bridge.protocol.RequestRefusedException;
import io.sluice.bridge.protocol.ServerMessages;
import io.sluice.bridge.session.Publishes;
import io.sluice.bridge.session.SessionServices;

/**
 * Routing of {@code POST|DELETE {server.path}/session} and {@code POST {server.path}/publish}, with their CORS
 * preflights (docs/bridge-http.md). One per connection (HTTP/1.1) or stream (HTTP/2). In: the requests
 * {@link AnswerOrder} ordered ({@link #ordered}: these paths, and a body {@link BodyLimit} refused), as
 * {@link AnswerOrder.Ordered}; out: one {@link AnswerOrder.Answer} per request, written back to the order, which sends
 * it in its turn. A publish is read by {@link HttpPublish}, its token checked by {@link HttpTokens}, and published
 * through {@code session.Publishes}; a session exchanges the bearer token for the cookie. Everything else passes on.
 */
public final class HttpRoutes extends ChannelInboundHandlerAdapter {

    public static final String NAME = "http-routes";

    private final String serverPath;
    private final String cookiePath;
    private final HttpConfig config;
    private final SessionServices services;
    private final Origins origins;
    private final HttpCredentials credentials;
    private final KeepAlive keepAlive;
    private ChannelHandlerContext ctx;
    private Publishes publishes;
    private HttpTokens tokens;

    /**
     * @param keepAlive the connection's (told when a token was valid); the same the {@link AnswerOrder} is given
     * @param publishes the connection's, shared by its HTTP/2 streams; null: one of this connection's own
     */
    public HttpRoutes(String serverPath, HttpConfig config, SessionServices services, Origins origins, KeepAlive keepAlive,
                      Publishes publishes) {
        this.publishes = publishes;
        this.serverPath = trimmed(serverPath);
        this.cookiePath = serverPath;
        this.config = config;
        this.services = services;
        this.origins = origins;
        this.credentials = new HttpCredentials(services.requests().maxTokenBytes(), origins, config.cookieSecure());
        this.keepAlive = keepAlive;
    }

    /** What {@link AnswerOrder} keeps a place for: the requests of these routes, and bodies refused as too large. */
    public static Predicate<Object> ordered(String serverPath, HttpConfig config) {
        String path = trimmed(serverPath);
        return msg -> msg instanceof BodyLimit.TooLarge
                || msg instanceof FullHttpRequest request && config.enabled() && Route.of(path, request.uri()) != null;
    }

    /** Places waiting in the order at most: the publishes one connection may have in flight, and some requests more. */
    public static int maxWaiting(SessionServices services) {
        return services.requests().publishesInFlight() + 16;
    }

    private static String trimmed(String serverPath) {
        return serverPath.endsWith("/") ? serverPath.substring(0, serverPath.length() - 1) : serverPath;
    }

    /** A request being answered: its place in the order, its route (null for a refused body of another path) and headers. */
    private record Slot(AnswerOrder.Place place, Route route, HttpHeaders requestHeaders) {
        HttpVersion version() {
            return place.version();
        }
    }

    @Override
    public void handlerAdded(ChannelHandlerContext ctx) {
        this.ctx = ctx;
        this.tokens = new HttpTokens(services, ctx.channel(), keepAlive);
        if (publishes == null) {
            publishes = new Publishes(services, ctx.channel());
        }
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
        if (!(msg instanceof AnswerOrder.Ordered ordered)) {
            ctx.fireChannelRead(msg);
            return;
        }
        if (ordered.request() instanceof BodyLimit.TooLarge tooLarge) {
            Slot slot = new Slot(ordered.place(), Route.of(serverPath, tooLarge.head().uri()), tooLarge.head().headers());
            answer(slot, error(slot, HttpResponseStatus.REQUEST_ENTITY_TOO_LARGE, ErrorCodes.MALFORMED, "the body is larger than"
                    + " server.maxInboundMessageBytes (" + (tooLarge.announced() >= 0 ? tooLarge.announced() + " > " : "")
                    + "the limit); nothing was published", -1), true);
            return;
        }
        FullHttpRequest request = (FullHttpRequest) ordered.request();
        try {
            serve(new Slot(ordered.place(), Route.of(serverPath, request.uri()), request.headers()), request);
        }
        finally {
            request.release();
        }
    }

    private void serve(Slot slot, FullHttpRequest request) {
        Route route = slot.route();
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
            FullHttpResponse response = Answers.empty(slot.version(), HttpResponseStatus.NO_CONTENT);
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
        FullHttpResponse response = Answers.empty(slot.version(), HttpResponseStatus.NO_CONTENT);
        if (origins.corsAllowed(slot.requestHeaders().get(HttpHeaderNames.ORIGIN))) {
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
            FullHttpResponse response = Answers.empty(slot.version(), HttpResponseStatus.NO_CONTENT);
            response.headers().set(HttpHeaderNames.SET_COOKIE, SessionCookie.set(token.token(), cookiePath, maxAge, config.cookieSecure()));
            answer(slot, response);
        });
    }

    private void publish(Slot slot, FullHttpRequest request) {
        String endpoint;
        try {
            endpoint = HttpPublish.endpoint(request.uri(), services.requests().maxEndpointBytes());
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
            publish = HttpPublish.payload(endpoint, request);
        }
        catch (RequestRefusedException e) {
            answer(slot, error(slot, e));
            return;
        }
        catch (HttpPublish.UnsupportedType e) {
            answer(slot, error(slot, HttpResponseStatus.UNSUPPORTED_MEDIA_TYPE, ErrorCodes.MALFORMED, e.getMessage(), -1));
            return;
        }
        authenticate(slot, ((HttpCredentials.Token) found).token(), principal -> {
            try {
                publishes.publish(principal, publish, outcome -> {
                    if (outcome instanceof Publishes.Acked acked) {
                        answer(slot, Answers.json(slot.version(), HttpResponseStatus.OK,
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

    /** Runs {@code then} with the token's principal on the event loop, or answers the refusal. */
    private void authenticate(Slot slot, String token, Consumer<Principal> then) {
        tokens.check(token, slot.version(), slot.place()::live, then, response -> answer(slot, response));
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
        return Answers.error(slot.version(), status, code, message, retryAfterMillis);
    }

    /** The slot's answer is known: sent back to the order, which writes it once every earlier one is. */
    private void answer(Slot slot, FullHttpResponse response) {
        answer(slot, response, false);
    }

    private void answer(Slot slot, FullHttpResponse response, boolean closeAfter) {
        if (!slot.place().live()) {
            response.release();
            return;
        }
        origins.addCorsHeaders(slot.requestHeaders(), response.headers());
        Runnable leaving = slot.route() == null ? () -> { }
                : () -> services.metrics().httpRequest(slot.route().label, response.status().code());
        ctx.write(new AnswerOrder.Answer(slot.place(), response, closeAfter, leaving));
    }
}
