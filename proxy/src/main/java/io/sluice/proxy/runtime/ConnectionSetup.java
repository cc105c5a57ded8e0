package io.sluice.proxy.runtime;

import java.time.Duration;
import java.util.List;

import io.netty.handler.ssl.SslContext;
import io.sluice.proxy.metrics.VirtualClusterMetrics;

/** What the client pipeline of one gateway needs to know; implemented by the server that owns the gateway. */
public interface ConnectionSetup {

    String virtualCluster();

    String gateway();

    VirtualClusterMetrics metrics();

    /** Null for plaintext. */
    SslContext clientSslContext();

    int maxFrameBytes();

    Duration filterTimeout();

    /**
     * The filters for a new connection, in order from the client towards the broker; called on the
     * connection's event loop.
     */
    List<NamedFilter> createFilters(ProxyConnection connection);

    UpstreamDialer dialer();
}
