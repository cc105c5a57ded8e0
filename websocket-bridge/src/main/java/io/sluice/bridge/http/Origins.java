package io.sluice.bridge.http;

import java.net.URI;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.stream.Collectors;

import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaders;
import io.sluice.bridge.config.HttpConfig;

/**
 * {@code connections.allowedOrigins} for the HTTP routes: which pages may read the answers (CORS) and which may use
 * the session cookie. With an empty list no CORS headers are sent at all: only pages of the bridge's own origin can
 * read answers, as without CORS, and only they (or clients that are not browsers) may use the cookie.
 */
public final class Origins {

    /** The fetch-metadata header browsers send with every request (Chrome 76+, Firefox 90+, Safari 16.4+). */
    static final String SEC_FETCH_SITE = "sec-fetch-site";

    private final Set<String> allowed;
    private final String ownScheme;

    /**
     * @param https whether pages reach this node over https, which makes the scheme of its own origin: see
     *              {@link #forListener}
     */
    public Origins(List<String> allowedOrigins, boolean https) {
        this.allowed = allowedOrigins.stream().map(Origins::normalize).collect(Collectors.toUnmodifiableSet());
        this.ownScheme = https ? "https" : "http";
    }

    /**
     * The origins of a listener. Its own origin's scheme is https with {@code server.tls}, and also with
     * {@code http.cookieSecure} (the default): a browser sends a {@code Secure} cookie only over https, so a page holding
     * it reached the node over https even when a proxy in front terminated TLS. Plain http only with
     * {@code cookieSecure: false} and no TLS (development).
     */
    public static Origins forListener(List<String> allowedOrigins, boolean tls, HttpConfig http) {
        return new Origins(allowedOrigins, tls || http.cookieSecure());
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
     * Whether a request may authenticate with the session cookie (docs/bridge-http.md, "Origins"). Its {@code Origin},
     * when it has one, must be on the list or, with an empty list, the node's own origin: {@link #ownScheme} with the
     * request's {@code Host} (HTTP/2's {@code :authority}), which a browser sets to where it sends the request and a
     * page cannot change. Without an {@code Origin} (not a browser, or a browser's GET, which carries none when
     * same-origin or no-cors), fetch metadata decides: {@code Sec-Fetch-Site} absent, {@code same-origin} or
     * {@code none} (typed by the user); {@code same-site} or {@code cross-site} is a page of another origin, such as an
     * {@code <img>} of a sibling subdomain, which {@code SameSite=Strict} does not stop.
     */
    public boolean cookieAllowed(HttpHeaders request) {
        String origin = request.get(HttpHeaderNames.ORIGIN);
        String site = request.get(SEC_FETCH_SITE);
        if (origin != null && allowed.contains(normalize(origin))) {
            return true;
        }
        boolean sameOriginSite = site == null || site.equalsIgnoreCase("same-origin") || site.equalsIgnoreCase("none");
        if (origin == null) {
            return sameOriginSite;
        }
        return allowed.isEmpty() && sameOriginSite && isOwn(origin, request.get(HttpHeaderNames.HOST));
    }

    /** Whether {@code origin} is {@code ownScheme://host}: the same scheme, host and port (defaults filled in). */
    private boolean isOwn(String origin, String host) {
        if (host == null || host.isEmpty() || host.length() > 1024) {
            return false;
        }
        try {
            URI page = new URI(origin.strip());
            URI self = new URI(ownScheme + "://" + host.strip());
            return ownScheme.equalsIgnoreCase(page.getScheme())
                    && page.getHost() != null && page.getHost().equalsIgnoreCase(self.getHost())
                    && port(page) == port(self)
                    && (page.getRawPath() == null || page.getRawPath().isEmpty())
                    && page.getRawUserInfo() == null && self.getRawUserInfo() == null;
        }
        catch (Exception e) {
            // "null" (an opaque origin) and any unparsable Origin or Host: not this node's.
            return false;
        }
    }

    private static int port(URI uri) {
        if (uri.getPort() >= 0) {
            return uri.getPort();
        }
        return "https".equalsIgnoreCase(uri.getScheme()) ? 443 : 80;
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
