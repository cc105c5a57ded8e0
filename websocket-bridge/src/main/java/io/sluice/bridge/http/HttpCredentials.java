package io.sluice.bridge.http;

import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.Set;

import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpRequest;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.QueryStringDecoder;
import io.netty.handler.codec.http.cookie.Cookie;
import io.netty.handler.codec.http.cookie.ServerCookieDecoder;
import io.sluice.bridge.protocol.ErrorCodes;

/**
 * The token of an HTTP request: {@code Authorization: Bearer} first, else the {@link SessionCookie} (docs/bridge-http.md).
 * Bounded by {@code requests.maxTokenBytes} before anyone validates it; a token in the query string is refused, since
 * URLs end up in access logs, proxies' logs and browser history. A cookie is accepted only from an allowed
 * {@link Origins origin}, and on a request that changes something (every method but GET and HEAD) only with the
 * {@value #REQUEST_HEADER} header: a custom header is what a page of another origin cannot send without a CORS
 * preflight, which the node grants only to listed origins. That holds where the {@code Origin} check cannot (a browser
 * or an extension that omits {@code Origin}); a {@code Content-Type} check would not (a {@code text/plain} form, a
 * {@code no-cors} fetch or {@code sendBeacon} need no preflight). Never logs or echoes a token.
 */
public final class HttpCredentials {

    private static final Set<String> TOKEN_PARAMETERS = Set.of("token", "access_token", "jwt");
    private static final String BEARER = "bearer ";
    /** The header a cookie-authenticated POST or DELETE must carry (any value). */
    public static final String REQUEST_HEADER = "X-Sluice-Request";

    private final int maxTokenBytes;
    private final Origins origins;
    private final String cookieName;

    /** @param cookieSecure {@code http.cookieSecure}, which names the cookie read ({@link SessionCookie#name}) */
    public HttpCredentials(int maxTokenBytes, Origins origins, boolean cookieSecure) {
        this.maxTokenBytes = maxTokenBytes;
        this.origins = origins;
        this.cookieName = SessionCookie.name(cookieSecure);
    }

    /** What {@link #of} found. */
    public sealed interface Result permits Token, Refused {
    }

    /** A token, not yet validated; {@code fromCookie} when it came from the session cookie. */
    public record Token(String token, boolean fromCookie) implements Result {
        @Override
        public String toString() {
            return "Token[" + (fromCookie ? "cookie" : "header") + ", " + token.length() + " chars]";
        }
    }

    /**
     * The answer to send instead: 400 {@code malformed} (a token in the URL, an unusable header), 401
     * {@code invalid_token} (no credentials; send {@code WWW-Authenticate: Bearer}), 403 {@code forbidden} (the cookie
     * from an origin not allowed, or on a POST without {@value #REQUEST_HEADER}) or 431 (a token over {@code requests.maxTokenBytes}).
     */
    public record Refused(HttpResponseStatus status, String code, String message) implements Result {
        /** Whether the answer carries {@code WWW-Authenticate: Bearer}. */
        public boolean challenge() {
            return status.equals(HttpResponseStatus.UNAUTHORIZED);
        }
    }

    public Result of(HttpRequest request) {
        Map<String, List<String>> query = new QueryStringDecoder(request.uri()).parameters();
        for (String name : query.keySet()) {
            if (TOKEN_PARAMETERS.contains(name)) {
                // Never echoing it: the value is a credential.
                return new Refused(HttpResponseStatus.BAD_REQUEST, ErrorCodes.MALFORMED, "tokens in URLs end up in logs;"
                        + " send Authorization: Bearer or use the session cookie (query parameter '" + name + "' refused)");
            }
        }
        String authorization = request.headers().get(HttpHeaderNames.AUTHORIZATION);
        if (authorization != null) {
            if (!authorization.regionMatches(true, 0, BEARER, 0, BEARER.length())) {
                return new Refused(HttpResponseStatus.UNAUTHORIZED, ErrorCodes.INVALID_TOKEN, "only Authorization: Bearer <token> is accepted");
            }
            return bounded(authorization.substring(BEARER.length()).strip(), false);
        }
        String cookie = cookie(request);
        if (cookie == null) {
            return new Refused(HttpResponseStatus.UNAUTHORIZED, ErrorCodes.INVALID_TOKEN,
                    "send Authorization: Bearer <token>, or the session cookie from POST .../session");
        }
        if (!origins.cookieAllowed(request.headers())) {
            return new Refused(HttpResponseStatus.FORBIDDEN, ErrorCodes.FORBIDDEN, "the session cookie is accepted only from"
                    + " this node's own origin or those in connections.allowedOrigins; other pages send Authorization: Bearer");
        }
        if (!safe(request.method()) && !request.headers().contains(REQUEST_HEADER)) {
            return new Refused(HttpResponseStatus.FORBIDDEN, ErrorCodes.FORBIDDEN, "a " + request.method()
                    + " authenticated by the session cookie needs the header " + REQUEST_HEADER + ": 1 (against cross-site request forgery)");
        }
        return bounded(cookie, true);
    }

    private Result bounded(String token, boolean fromCookie) {
        if (token.isEmpty()) {
            return new Refused(HttpResponseStatus.UNAUTHORIZED, ErrorCodes.INVALID_TOKEN, "the token is empty");
        }
        // Bytes, as on WebSocket; a header is ISO-8859-1 on the wire, so this is at most twice the wire length.
        if (token.length() > maxTokenBytes || token.getBytes(StandardCharsets.UTF_8).length > maxTokenBytes) {
            return new Refused(HttpResponseStatus.REQUEST_HEADER_FIELDS_TOO_LARGE, ErrorCodes.MALFORMED,
                    "the token is longer than requests.maxTokenBytes (" + maxTokenBytes + ")");
        }
        return new Token(token, fromCookie);
    }

    private static boolean safe(HttpMethod method) {
        return HttpMethod.GET.equals(method) || HttpMethod.HEAD.equals(method);
    }

    /** The first session cookie of this node's name (the most specific path comes first), or null. */
    private String cookie(HttpRequest request) {
        for (String header : request.headers().getAll(HttpHeaderNames.COOKIE)) {
            for (Cookie c : ServerCookieDecoder.STRICT.decodeAll(header)) {
                if (cookieName.equals(c.name())) {
                    return c.value();
                }
            }
        }
        return null;
    }
}
