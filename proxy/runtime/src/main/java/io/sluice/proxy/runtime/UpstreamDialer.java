package io.sluice.proxy.runtime;

import java.util.concurrent.CompletionStage;

import io.netty.channel.Channel;

/**
 * Opens the broker connection for a client connection: decides which broker (the bootstrap, or the node
 * the client's port stands for) and connects on the client's own event loop with the broker-side pipeline
 * installed.
 */
public interface UpstreamDialer {

    CompletionStage<Channel> dial(ProxyConnection connection);
}
