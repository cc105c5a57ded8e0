package io.sluice.bridge.http;

import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.stream.Collectors;

import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaders;

/**
 * {@code connections.allowedOrigins} for the HTTP routes: which pages may read the answers (CORS) and which may use
 * the session cookie. With an empty list no CORS headers are sent at all: only pages of the bridge's own origin can
 * read answers, as without CORS.
 */
public final class Origins {

    private final Set<String> allowed;

    public Origins(List<String> allowedOrigins) {
        this.allowed = allowedOrigins.stream().map(Origins::normalize).collect(Collectors.toUnmodifiableSet());
    }

    /** Case and a trailing slash do not distinguish origins; browsers send neither, configurations may. */
    public static String normalize(String origin) {
        String o = origin.strip().toLowerCase(Locale.ROOT);
        return o.endsWith("/") ? o.substring(0, o.length() - 1) : o;
    }

    /** Whether a page from {@code origin} gets CORS headers: only when the list names it. */
    public boolean corsAllowed(String origin) {
        return origin != null && allowed.contains(normalize(origin));
    }

    /**
     * Whether a request from {@code origin} may authenticate with the session cookie: no {@code Origin} (not a
     * browser's cross-origin request), no list, or an origin on the list.
     */
    public boolean cookieAllowed(String origin) {
        return origin == null || allowed.isEmpty() || allowed.contains(normalize(origin));
    }

    /**
     * The CORS headers of an answer to {@code request}: for an allowed origin, that origin with credentials; always
     * {@code Vary: Origin}, since the answer depends on it and a shared cache must not give one origin's to another.
     */
    public void addCorsHeaders(HttpHeaders request, HttpHeaders response) {
        response.add(HttpHeaderNames.VARY, HttpHeaderNames.ORIGIN);
        String origin = request.get(HttpHeaderNames.ORIGIN);
        if (corsAllowed(origin)) {
            response.set(HttpHeaderNames.ACCESS_CONTROL_ALLOW_ORIGIN, origin)
                    .set(HttpHeaderNames.ACCESS_CONTROL_ALLOW_CREDENTIALS, "true");
        }
    }
}
