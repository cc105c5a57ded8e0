package io.sluice.bridge.http;

import io.netty.buffer.Unpooled;
import io.netty.handler.codec.http.DefaultFullHttpResponse;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpVersion;
import io.sluice.bridge.protocol.ErrorCodes;
import io.sluice.bridge.protocol.ServerMessages;

/**
 * The HTTP routes' answers: JSON bodies exactly as the WebSocket transport's messages ({@code ack}, {@code error}
 * with the same codes), never cached, and the HTTP status each error code means.
 */
public final class Answers {

    /** When a retry can succeed, for limits that do not know better: a connection's publishes in flight, a busy node. */
    static final long DEFAULT_RETRY_MILLIS = 1000;

    private Answers() {
    }

    static FullHttpResponse json(HttpVersion version, HttpResponseStatus status, byte[] body) {
        FullHttpResponse response = new DefaultFullHttpResponse(version, status, Unpooled.wrappedBuffer(body));
        response.headers().set(HttpHeaderNames.CONTENT_TYPE, "application/json")
                .set(HttpHeaderNames.CONTENT_LENGTH, body.length)
                .set(HttpHeaderNames.CACHE_CONTROL, "no-store");
        return response;
    }

    static FullHttpResponse empty(HttpVersion version, HttpResponseStatus status) {
        FullHttpResponse response = new DefaultFullHttpResponse(version, status, Unpooled.EMPTY_BUFFER);
        if (status.code() != HttpResponseStatus.NO_CONTENT.code()) {
            response.headers().set(HttpHeaderNames.CONTENT_LENGTH, 0);
        }
        response.headers().set(HttpHeaderNames.CACHE_CONTROL, "no-store");
        return response;
    }

    /**
     * @param retryAfterMillis when a retry can succeed, or negative: sent as {@code retryAfterMs} in the body and,
     *                         rounded up to whole seconds, as {@code Retry-After}
     */
    public static FullHttpResponse error(HttpVersion version, HttpResponseStatus status, String code, String message, long retryAfterMillis) {
        FullHttpResponse response = json(version, status, ServerMessages.error(null, code, message, retryAfterMillis));
        if (retryAfterMillis >= 0) {
            response.headers().set(HttpHeaderNames.RETRY_AFTER, Math.max(1, (retryAfterMillis + 999) / 1000));
        }
        if (status.equals(HttpResponseStatus.UNAUTHORIZED)) {
            response.headers().set(HttpHeaderNames.WWW_AUTHENTICATE, "Bearer");
        }
        return response;
    }

    /** The status of a refusal with a WebSocket error code. */
    static HttpResponseStatus status(String code) {
        return switch (code) {
            case ErrorCodes.FORBIDDEN -> HttpResponseStatus.FORBIDDEN;
            case ErrorCodes.UNKNOWN_ENDPOINT -> HttpResponseStatus.NOT_FOUND;
            case ErrorCodes.INVALID_TOKEN, ErrorCodes.NOT_CONNECTED -> HttpResponseStatus.UNAUTHORIZED;
            case ErrorCodes.BUSY, ErrorCodes.RATE_LIMITED -> HttpResponseStatus.TOO_MANY_REQUESTS;
            case ErrorCodes.PUBLISH_FAILED -> HttpResponseStatus.SERVICE_UNAVAILABLE;
            default -> HttpResponseStatus.BAD_REQUEST;
        };
    }
}
