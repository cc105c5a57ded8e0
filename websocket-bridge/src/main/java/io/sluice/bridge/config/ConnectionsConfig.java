package io.sluice.bridge.config;

import java.time.Duration;
import java.util.List;

import com.fasterxml.jackson.annotation.JsonCreator;
import com.fasterxml.jackson.annotation.JsonProperty;

/**
 * What a client may cost the node before and around its WebSocket handshake: how long it may take, how large its HTTP
 * request may be, how many connections and handshakes one address and everyone together may hold, and how fast one
 * address may open connections. Documented in docs/bridge.md ("Connection limits").
 *
 * @param handshakeTimeout       from the TCP accept to the completed WebSocket upgrade; a connection that sends nothing,
 *                               part of a request, or only static-file requests is closed after this long
 * @param maxRequestLineBytes    longest HTTP request line (method, URI, version); longer: 414 and close
 * @param maxHeaderBytes         largest HTTP header block; larger: 431 and close
 * @param maxConnections         TCP connections open at once on this node (WebSocket, static files and handshakes)
 * @param maxConnectionsPerIp    the same, per client address
 * @param maxHandshakes          connections accepted but not yet upgraded, at once on this node
 * @param maxHandshakesPerIp     the same, per TCP peer address
 * @param connectionsPerSecondPerIp new connections per second one client address may open on average (token bucket)
 * @param connectionBurstPerIp   the bucket's size: how many it may open at once after being quiet
 * @param trustedProxies         CIDR blocks of reverse proxies whose {@code X-Forwarded-For} names the client; peers in
 *                               them are exempt from the per-address limits at accept time (they carry many clients)
 * @param allowedOrigins         when not empty, a WebSocket upgrade carrying an {@code Origin} not in this list is
 *                               refused with 403
 * @param maxConnectionsPerSubject authenticated sessions (WebSocket or SSE) one token subject may hold on this node;
 *                               0: no limit (the default, since one token is often shared by many devices)
 */
public record ConnectionsConfig(Duration handshakeTimeout, int maxRequestLineBytes, int maxHeaderBytes,
                                int maxConnections, int maxConnectionsPerIp, int maxHandshakes, int maxHandshakesPerIp,
                                double connectionsPerSecondPerIp, int connectionBurstPerIp,
                                List<String> trustedProxies, List<String> allowedOrigins, int maxConnectionsPerSubject) {

    public static final Duration DEFAULT_HANDSHAKE_TIMEOUT = Duration.ofSeconds(10);
    public static final int DEFAULT_MAX_REQUEST_LINE_BYTES = 4096;
    public static final int DEFAULT_MAX_HEADER_BYTES = 8192;
    public static final int DEFAULT_MAX_CONNECTIONS = 100_000;
    public static final int DEFAULT_MAX_CONNECTIONS_PER_IP = 1000;
    public static final int DEFAULT_MAX_HANDSHAKES = 2000;
    public static final int DEFAULT_MAX_HANDSHAKES_PER_IP = 50;
    public static final double DEFAULT_CONNECTIONS_PER_SECOND_PER_IP = 20;
    public static final int DEFAULT_CONNECTION_BURST_PER_IP = 200;

    public ConnectionsConfig {
        handshakeTimeout = handshakeTimeout == null ? DEFAULT_HANDSHAKE_TIMEOUT : handshakeTimeout;
        trustedProxies = trustedProxies == null ? List.of() : List.copyOf(trustedProxies);
        allowedOrigins = allowedOrigins == null ? List.of() : List.copyOf(allowedOrigins);
    }

    public static ConnectionsConfig defaults() {
        return new ConnectionsConfig(null, DEFAULT_MAX_REQUEST_LINE_BYTES, DEFAULT_MAX_HEADER_BYTES, DEFAULT_MAX_CONNECTIONS,
                DEFAULT_MAX_CONNECTIONS_PER_IP, DEFAULT_MAX_HANDSHAKES, DEFAULT_MAX_HANDSHAKES_PER_IP,
                DEFAULT_CONNECTIONS_PER_SECOND_PER_IP, DEFAULT_CONNECTION_BURST_PER_IP, null, null, 0);
    }

    /** The trusted proxies, parsed; call only on a validated configuration. */
    public List<AddressBlock> trustedProxyBlocks() {
        return trustedProxies.stream().map(AddressBlock::parse).toList();
    }

    @JsonCreator
    static ConnectionsConfig fromYaml(@JsonProperty("handshakeTimeout") Duration handshakeTimeout,
                                      @JsonProperty("maxRequestLineBytes") Integer maxRequestLineBytes,
                                      @JsonProperty("maxHeaderBytes") Integer maxHeaderBytes,
                                      @JsonProperty("maxConnections") Integer maxConnections,
                                      @JsonProperty("maxConnectionsPerIp") Integer maxConnectionsPerIp,
                                      @JsonProperty("maxHandshakes") Integer maxHandshakes,
                                      @JsonProperty("maxHandshakesPerIp") Integer maxHandshakesPerIp,
                                      @JsonProperty("connectionsPerSecondPerIp") Double connectionsPerSecondPerIp,
                                      @JsonProperty("connectionBurstPerIp") Integer connectionBurstPerIp,
                                      @JsonProperty("trustedProxies") List<String> trustedProxies,
                                      @JsonProperty("allowedOrigins") List<String> allowedOrigins,
                                      @JsonProperty("maxConnectionsPerSubject") Integer maxConnectionsPerSubject) {
        return new ConnectionsConfig(handshakeTimeout,
                maxRequestLineBytes == null ? DEFAULT_MAX_REQUEST_LINE_BYTES : maxRequestLineBytes,
                maxHeaderBytes == null ? DEFAULT_MAX_HEADER_BYTES : maxHeaderBytes,
                maxConnections == null ? DEFAULT_MAX_CONNECTIONS : maxConnections,
                maxConnectionsPerIp == null ? DEFAULT_MAX_CONNECTIONS_PER_IP : maxConnectionsPerIp,
                maxHandshakes == null ? DEFAULT_MAX_HANDSHAKES : maxHandshakes,
                maxHandshakesPerIp == null ? DEFAULT_MAX_HANDSHAKES_PER_IP : maxHandshakesPerIp,
                connectionsPerSecondPerIp == null ? DEFAULT_CONNECTIONS_PER_SECOND_PER_IP : connectionsPerSecondPerIp,
                connectionBurstPerIp == null ? DEFAULT_CONNECTION_BURST_PER_IP : connectionBurstPerIp,
                trustedProxies, allowedOrigins, maxConnectionsPerSubject == null ? 0 : maxConnectionsPerSubject);
    }
}
