package io.sluice.bridge.server;

import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.ssl.ApplicationProtocolNames;
import io.netty.handler.ssl.ApplicationProtocolNegotiationHandler;

/**
 * After the TLS handshake, the pipeline for the protocol the client chose by ALPN: {@code h2}, or {@code http/1.1},
 * which is also what a client that does not speak ALPN gets (older clients, WebSocket libraries).
 */
final class Alpn extends ApplicationProtocolNegotiationHandler {

    static final String NAME = "alpn";

    private final Runnable http2;
    private final Runnable http1;

    Alpn(Runnable http2, Runnable http1) {
        super(ApplicationProtocolNames.HTTP_1_1);
        this.http2 = http2;
        this.http1 = http1;
    }

    @Override
    protected void configurePipeline(ChannelHandlerContext ctx, String protocol) {
        if (ApplicationProtocolNames.HTTP_2.equals(protocol)) {
            http2.run();
        }
        else if (ApplicationProtocolNames.HTTP_1_1.equals(protocol)) {
            http1.run();
        }
        else {
            throw new IllegalStateException("unexpected ALPN protocol " + protocol);
        }
    }
}
