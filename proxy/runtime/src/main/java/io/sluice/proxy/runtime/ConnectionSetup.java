package io.sluice.proxy.runtime;

import java.time.Duration;
import java.util.List;

import io.netty.handler.ssl.SslContext;
import io.sluice.proxy.cluster.ApiVersionsCache;
import io.sluice.proxy.config.PreAuthenticationConfig;
import io.sluice.proxy.metrics.VirtualClusterMetrics;

/** What the client pipeline of one gateway needs to know; implemented by the server that owns the gateway. */
public interface ConnectionSetup {

    String virtualCluster();

    String gateway();

    VirtualClusterMetrics metrics();

    /** Null for plaintext. */
    SslContext clientSslContext();

    int maxFrameBytes();

    /** The most a Fetch may ask for, in total and per partition. */
    int maxFetchBytes();

    /** How long a client may leave a high-water mark of answers unread before it is closed; zero never. */
    Duration maxUnwritableTime();

    /** network.connectionsMaxIdle: nothing read or written this long closes the connection; zero never. */
    Duration connectionsMaxIdle();

    Duration filterTimeout();

    /**
     * The limits for connections not yet authenticated, or null when no filter in the chain authenticates
     * clients (then connections are never "unauthenticated" as far as the proxy knows).
     */
    PreAuthenticationConfig preAuthentication();

    /** Where every accepted connection is registered, for shutdown to drain. */
    OpenConnections openConnections();

    /** Counts the virtual cluster's connections; refuses those over its limits. */
    ConnectionLimiter limiter();

    /**
     * The filters for a new connection, in order from the client towards the broker; called on the
     * connection's event loop.
     */
    List<NamedFilter> createFilters(ProxyConnection connection);

    UpstreamDialer dialer();

    /** The virtual cluster's cached ApiVersions answers, for clients that have not authenticated yet. */
    ApiVersionsCache apiVersions();

    /** Where the virtual cluster's connections log closes caused by the broker, rate-limited. */
    BrokerTroubleLog brokerTrouble();
}
