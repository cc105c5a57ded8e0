package io.sluice.bridge.http;

import java.util.Set;

import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.QueryStringDecoder;

/** The HTTP paths this package serves under {@code server.path}, and the methods each takes. */
enum Route {

    SESSION("/session", "session", Set.of(HttpMethod.POST, HttpMethod.DELETE, HttpMethod.OPTIONS)),
    PUBLISH("/publish", "publish", Set.of(HttpMethod.POST, HttpMethod.OPTIONS));

    private final String suffix;
    /** The {@code path} label of {@code sluice_bridge_http_requests_total}. */
    final String label;
    final Set<HttpMethod> methods;

    Route(String suffix, String label, Set<HttpMethod> methods) {
        this.suffix = suffix;
        this.label = label;
        this.methods = methods;
    }

    /** The route of {@code uri} (exactly {@code serverPath} + the route's suffix, any query), or null. */
    static Route of(String serverPath, String uri) {
        String path = new QueryStringDecoder(uri).path();
        if (!path.startsWith(serverPath)) {
            return null;
        }
        for (Route route : values()) {
            if (path.length() == serverPath.length() + route.suffix.length() && path.endsWith(route.suffix)) {
                return route;
            }
        }
        return null;
    }

    /** The {@code Allow} header of a 405. */
    String allow() {
        return this == SESSION ? "POST, DELETE, OPTIONS" : "POST, OPTIONS";
    }
}
