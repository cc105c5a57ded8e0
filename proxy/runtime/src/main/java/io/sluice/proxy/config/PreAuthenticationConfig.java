package io.sluice.proxy.config;

import java.time.Duration;

import com.fasterxml.jackson.annotation.JsonCreator;
import com.fasterxml.jackson.annotation.JsonProperty;

/**
 * Limits on a client connection that has not authenticated yet. They apply only on virtual clusters whose
 * filter chain authenticates clients (JwtAuth, say), from accept until a filter reports the client
 * authenticated; then {@link NetworkConfig#maxFrameBytes} and no deadline apply.
 *
 * @param maxFrameBytes     largest frame accepted before authentication; Kafka's own cap on pre-authentication
 *                          SASL messages ({@code sasl.server.max.receive.size}) is 512 KiB too. A value above
 *                          {@code network.maxFrameBytes} changes nothing: that limit applies as well
 * @param timeout           a connection not authenticated this long after it was accepted is closed
 * @param maxQueuedRequests requests a client may have waiting behind one still in progress (a token being
 *                          validated, the broker connection being opened) before it is closed
 */
public record PreAuthenticationConfig(int maxFrameBytes, Duration timeout, int maxQueuedRequests) {

    public static final int DEFAULT_MAX_FRAME_BYTES = 512 * 1024;
    public static final Duration DEFAULT_TIMEOUT = Duration.ofSeconds(20);
    public static final int DEFAULT_MAX_QUEUED_REQUESTS = 8;

    public PreAuthenticationConfig {
        timeout = timeout == null ? DEFAULT_TIMEOUT : timeout;
    }

    public static PreAuthenticationConfig defaults() {
        return new PreAuthenticationConfig(DEFAULT_MAX_FRAME_BYTES, DEFAULT_TIMEOUT, DEFAULT_MAX_QUEUED_REQUESTS);
    }

    @JsonCreator
    static PreAuthenticationConfig fromYaml(@JsonProperty("maxFrameBytes") Integer maxFrameBytes,
                                            @JsonProperty("timeout") Duration timeout,
                                            @JsonProperty("maxQueuedRequests") Integer maxQueuedRequests) {
        return new PreAuthenticationConfig(maxFrameBytes == null ? DEFAULT_MAX_FRAME_BYTES : maxFrameBytes, timeout,
                maxQueuedRequests == null ? DEFAULT_MAX_QUEUED_REQUESTS : maxQueuedRequests);
    }
}
