package io.sluice.proxy.runtime;

import java.util.concurrent.CompletionStage;

import io.netty.channel.Channel;

/** What an SNI listener routes its connections by; implemented by the server, which knows the gateways on the port. */
public interface SniRoutes {

    /**
     * The connection setup of the gateway and broker {@code serverName} stands for, completing exceptionally with a
     * {@link SniRefusedException} when it stands for none. Called on the connection's event loop.
     *
     * @param serverName the ClientHello's server name, lower case (Netty's SNI parsing); never null
     */
    CompletionStage<ConnectionSetup> route(String serverName);

    /** Counts a refused connection and logs it, rate-limited (any client can cause one). Event loop. */
    void refused(Channel channel, SniRefusal reason, String detail);
}
