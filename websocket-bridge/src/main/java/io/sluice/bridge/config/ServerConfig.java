package io.sluice.bridge.config;

import java.io.IOException;
import java.net.InetAddress;
import java.time.Duration;

import com.fasterxml.jackson.annotation.JsonCreator;
import com.fasterxml.jackson.annotation.JsonProperty;

import io.sluice.config.HostPort;
import io.sluice.config.TlsServerConfig;
import io.sluice.transport.Transport;

/**
 * The WebSocket listener.
 *
 * @param listen                 address and port; port 0 picks a free one
 * @param path                   the HTTP path WebSocket clients connect to
 * @param workerThreads          event loop threads; 0 lets Netty choose (twice the cores)
 * @param maxInboundMessageBytes largest message a client may send; larger ones close the connection with 1009
 * @param socketSendBufferBytes  SO_SNDBUF per connection; 0 keeps the operating system's (auto-tuned) default.
 *                               Smaller kernel buffers make a slow client reach the bridge's own limits sooner.
 * @param nodeName               this node's name, reported to clients in {@code connected}; default: the host name
 * @param maxSubscriptionsPerConnection a {@code subscribe} beyond this many is refused with {@code too_many_subscriptions};
 *                               bounds what one connection can make the hub track
 * @param tls                    when set, the listener speaks TLS ({@code wss://}): the proxy gateways' section, same
 *                               fields and validation (docs/configuration.md)
 * @param shutdownTimeout        on SIGTERM, how long clients get to answer the 1001 close before their connections are
 *                               closed anyway; 0 closes them at once
 * @param transport              the event loops' socket transport: auto (default), io_uring, epoll or nio
 */
public record ServerConfig(HostPort listen, String path, int workerThreads, int maxInboundMessageBytes,
                           int socketSendBufferBytes, String nodeName, int maxSubscriptionsPerConnection,
                           TlsServerConfig tls, Duration shutdownTimeout, String transport) {

    public static final HostPort DEFAULT_LISTEN = new HostPort("127.0.0.1", 8080);
    public static final String DEFAULT_PATH = "/ws";
    public static final int DEFAULT_MAX_INBOUND_MESSAGE_BYTES = 1024 * 1024;
    public static final int DEFAULT_MAX_SUBSCRIPTIONS_PER_CONNECTION = 1000;
    // A close handshake takes a round trip; the bound is for clients that stopped reading.
    public static final Duration DEFAULT_SHUTDOWN_TIMEOUT = Duration.ofSeconds(10);

    public ServerConfig {
        listen = listen == null ? DEFAULT_LISTEN : listen;
        path = path == null ? DEFAULT_PATH : path;
        nodeName = nodeName == null || nodeName.isBlank() ? localHostName() : nodeName;
        shutdownTimeout = shutdownTimeout == null ? DEFAULT_SHUTDOWN_TIMEOUT : shutdownTimeout;
        transport = transport == null ? Transport.AUTO : transport;
    }

    public static ServerConfig defaults() {
        return new ServerConfig(null, null, 0, DEFAULT_MAX_INBOUND_MESSAGE_BYTES, 0, null, DEFAULT_MAX_SUBSCRIPTIONS_PER_CONNECTION, null, null, null);
    }

    /** Without TLS and with the default subscription limit. */
    public ServerConfig(HostPort listen, String path, int workerThreads, int maxInboundMessageBytes, int socketSendBufferBytes,
                        String nodeName) {
        this(listen, path, workerThreads, maxInboundMessageBytes, socketSendBufferBytes, nodeName,
                DEFAULT_MAX_SUBSCRIPTIONS_PER_CONNECTION, null, null, null);
    }

    /** The URL scheme clients use: {@code wss} with TLS, {@code ws} without. */
    public String scheme() {
        return tls == null ? "ws" : "wss";
    }

    @JsonCreator
    static ServerConfig fromYaml(@JsonProperty("listen") HostPort listen,
                                 @JsonProperty("path") String path,
                                 @JsonProperty("workerThreads") Integer workerThreads,
                                 @JsonProperty("maxInboundMessageBytes") Integer maxInboundMessageBytes,
                                 @JsonProperty("socketSendBufferBytes") Integer socketSendBufferBytes,
                                 @JsonProperty("nodeName") String nodeName,
                                 @JsonProperty("maxSubscriptionsPerConnection") Integer maxSubscriptionsPerConnection,
                                 @JsonProperty("tls") TlsServerConfig tls,
                                 @JsonProperty("shutdownTimeout") Duration shutdownTimeout,
                                 @JsonProperty("transport") String transport) {
        return new ServerConfig(listen, path, workerThreads == null ? 0 : workerThreads,
                maxInboundMessageBytes == null ? DEFAULT_MAX_INBOUND_MESSAGE_BYTES : maxInboundMessageBytes,
                socketSendBufferBytes == null ? 0 : socketSendBufferBytes, nodeName,
                maxSubscriptionsPerConnection == null ? DEFAULT_MAX_SUBSCRIPTIONS_PER_CONNECTION : maxSubscriptionsPerConnection, tls,
                shutdownTimeout, transport);
    }

    private static String localHostName() {
        try {
            return InetAddress.getLocalHost().getHostName();
        }
        catch (IOException e) {
            return "bridge";
        }
    }
}
