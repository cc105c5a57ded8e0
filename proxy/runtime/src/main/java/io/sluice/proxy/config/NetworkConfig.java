package io.sluice.proxy.config;

import java.time.Duration;

import com.fasterxml.jackson.annotation.JsonCreator;
import com.fasterxml.jackson.annotation.JsonProperty;

import io.sluice.transport.Transport;

/**
 * Proxy-wide network settings.
 *
 * @param workerThreads event loop threads; 0 lets Netty choose (twice the cores)
 * @param maxFrameBytes largest Kafka frame accepted in either direction
 * @param filterTimeout how long a filter may take to handle one message
 * @param connectTimeout for connections to brokers
 * @param writeBufferHighWaterMark stop reading from the other side above this many queued bytes
 * @param writeBufferLowWaterMark resume reading below this many queued bytes
 * @param preAuthentication limits on connections not yet authenticated, where a filter authenticates clients
 * @param shutdownTimeout on SIGTERM, how long requests already received may take to be answered before the remaining
 *                        client connections are closed anyway; 0 closes them at once
 * @param transport the event loops' socket transport: auto, io_uring, epoll or nio (io.sluice.transport.Transport)
 * @param maxUnwritableTime a client connection that keeps more than writeBufferHighWaterMark bytes of answers unread
 *                          (never drains below the low-water mark) this long is closed; 0 never
 * @param maxFetchBytes the most a Fetch or ShareFetch may ask the broker for, in total and per partition; larger
 *                      requests are lowered to it
 * @param clientOutboundBudgetBytes bytes queued towards all clients together past which connections stop reading
 *                                  from their brokers until the queues drain; 0 picks a quarter of the heap
 * @param connectionsMaxIdle a client connection on which nothing is read or written this long is closed, as a
 *                           broker closes it after connections.max.idle.ms; 0 never
 */
public record NetworkConfig(int workerThreads,
                            int maxFrameBytes,
                            Duration filterTimeout,
                            Duration connectTimeout,
                            int writeBufferHighWaterMark,
                            int writeBufferLowWaterMark,
                            PreAuthenticationConfig preAuthentication,
                            Duration shutdownTimeout,
                            String transport,
                            Duration maxUnwritableTime,
                            int maxFetchBytes,
                            long clientOutboundBudgetBytes,
                            Duration connectionsMaxIdle) {

    public static final int DEFAULT_MAX_FRAME_BYTES = 104_857_600;
    public static final Duration DEFAULT_FILTER_TIMEOUT = Duration.ofSeconds(20);
    public static final Duration DEFAULT_CONNECT_TIMEOUT = Duration.ofSeconds(10);
    public static final int DEFAULT_HIGH_WATER_MARK = 1024 * 1024;
    public static final int DEFAULT_LOW_WATER_MARK = 512 * 1024;
    // Inside Kubernetes' default 30 s termination grace period, with room for the rest of the shutdown.
    public static final Duration DEFAULT_SHUTDOWN_TIMEOUT = Duration.ofSeconds(15);
    // Long enough for a consumer on a slow link to take a whole maxFetchBytes answer (8 MiB at ~140 KB/s).
    public static final Duration DEFAULT_MAX_UNWRITABLE_TIME = Duration.ofSeconds(60);
    public static final int DEFAULT_MAX_FETCH_BYTES = 8 * 1024 * 1024;
    // The broker's connections.max.idle.ms: kafka-clients close their idle connections first (9 min).
    public static final Duration DEFAULT_CONNECTIONS_MAX_IDLE = Duration.ofMinutes(10);

    public NetworkConfig {
        filterTimeout = filterTimeout == null ? DEFAULT_FILTER_TIMEOUT : filterTimeout;
        connectTimeout = connectTimeout == null ? DEFAULT_CONNECT_TIMEOUT : connectTimeout;
        preAuthentication = preAuthentication == null ? PreAuthenticationConfig.defaults() : preAuthentication;
        shutdownTimeout = shutdownTimeout == null ? DEFAULT_SHUTDOWN_TIMEOUT : shutdownTimeout;
        transport = transport == null ? Transport.AUTO : transport;
        maxUnwritableTime = maxUnwritableTime == null ? DEFAULT_MAX_UNWRITABLE_TIME : maxUnwritableTime;
        connectionsMaxIdle = connectionsMaxIdle == null ? DEFAULT_CONNECTIONS_MAX_IDLE : connectionsMaxIdle;
    }

    /** The budget in bytes: as configured, or a quarter of the largest heap this JVM may have. */
    public long effectiveClientOutboundBudgetBytes() {
        return clientOutboundBudgetBytes > 0 ? clientOutboundBudgetBytes : Runtime.getRuntime().maxMemory() / 4;
    }

    public static NetworkConfig defaults() {
        return new NetworkConfig(0, DEFAULT_MAX_FRAME_BYTES, DEFAULT_FILTER_TIMEOUT, DEFAULT_CONNECT_TIMEOUT,
                DEFAULT_HIGH_WATER_MARK, DEFAULT_LOW_WATER_MARK, PreAuthenticationConfig.defaults(), DEFAULT_SHUTDOWN_TIMEOUT,
                Transport.AUTO, DEFAULT_MAX_UNWRITABLE_TIME, DEFAULT_MAX_FETCH_BYTES, 0, DEFAULT_CONNECTIONS_MAX_IDLE);
    }

    @JsonCreator
    static NetworkConfig fromYaml(@JsonProperty("workerThreads") Integer workerThreads,
                                  @JsonProperty("maxFrameBytes") Integer maxFrameBytes,
                                  @JsonProperty("filterTimeout") Duration filterTimeout,
                                  @JsonProperty("connectTimeout") Duration connectTimeout,
                                  @JsonProperty("writeBufferHighWaterMark") Integer writeBufferHighWaterMark,
                                  @JsonProperty("writeBufferLowWaterMark") Integer writeBufferLowWaterMark,
                                  @JsonProperty("preAuthentication") PreAuthenticationConfig preAuthentication,
                                  @JsonProperty("shutdownTimeout") Duration shutdownTimeout,
                                  @JsonProperty("transport") String transport,
                                  @JsonProperty("maxUnwritableTime") Duration maxUnwritableTime,
                                  @JsonProperty("maxFetchBytes") Integer maxFetchBytes,
                                  @JsonProperty("clientOutboundBudgetBytes") Long clientOutboundBudgetBytes,
                                  @JsonProperty("connectionsMaxIdle") Duration connectionsMaxIdle) {
        return new NetworkConfig(
                workerThreads == null ? 0 : workerThreads,
                maxFrameBytes == null ? DEFAULT_MAX_FRAME_BYTES : maxFrameBytes,
                filterTimeout,
                connectTimeout,
                writeBufferHighWaterMark == null ? DEFAULT_HIGH_WATER_MARK : writeBufferHighWaterMark,
                writeBufferLowWaterMark == null ? DEFAULT_LOW_WATER_MARK : writeBufferLowWaterMark,
                preAuthentication,
                shutdownTimeout,
                transport,
                maxUnwritableTime,
                maxFetchBytes == null ? DEFAULT_MAX_FETCH_BYTES : maxFetchBytes,
                clientOutboundBudgetBytes == null ? 0 : clientOutboundBudgetBytes,
                connectionsMaxIdle);
    }
}
