package io.sluice.bridge.http;

import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.codec.http.FullHttpRequest;

/**
 * Serves {@code GET {server.path}/sse}: the HTTP layer has routed the request and found its credentials; the
 * implementation validates the rest (query, {@code Last-Event-ID}, the token itself), answers an error or takes the
 * connection over as an event stream (docs/bridge-http.md).
 */
public interface StreamStarter {

    /**
     * @param request the request; released by the caller after this returns, so retain what is kept
     * @param token   the bearer token from the {@code Authorization} header or the session cookie, not yet validated
     */
    void start(ChannelHandlerContext ctx, FullHttpRequest request, String token);
}
