package io.sluice.bridge.config;

import com.fasterxml.jackson.annotation.JsonCreator;
import com.fasterxml.jackson.annotation.JsonProperty;

/**
 * Bounds on what one connection's requests may ask of the node, so that no client can make it do unbounded work.
 * Frame size is bounded separately ({@code server.maxInboundMessageBytes}); these bound the fields inside a frame and
 * the rate of the requests that cost the node most.
 *
 * @param maxEndpointBytes    longest {@code endpoint} (UTF-8 bytes) a request may name
 * @param maxTokenBytes       longest {@code token} (UTF-8 bytes) in {@code connect} or {@code refresh}
 * @param subscribesPerSecond steady rate of {@code subscribe} requests per connection (token bucket refill)
 * @param subscribeBurst      subscribes a connection may send at once (token bucket size), e.g. all of a page's
 *                            subscriptions after a reconnect
 * @param publishesInFlight   publishes one connection may have sent and not yet had answered
 * @param publishBytesInFlight payload bytes of those; a connection with none in flight may always publish one
 */
public record RequestLimitsConfig(int maxEndpointBytes, int maxTokenBytes, double subscribesPerSecond, int subscribeBurst,
                                  int publishesInFlight, int publishBytesInFlight) {

    public static final int DEFAULT_MAX_ENDPOINT_BYTES = 1024;
    public static final int DEFAULT_MAX_TOKEN_BYTES = 16 * 1024;
    public static final double DEFAULT_SUBSCRIBES_PER_SECOND = 50;
    public static final int DEFAULT_SUBSCRIBE_BURST = 200;
    public static final int DEFAULT_PUBLISHES_IN_FLIGHT = 64;
    public static final int DEFAULT_PUBLISH_BYTES_IN_FLIGHT = 4 * 1024 * 1024;

    public static RequestLimitsConfig defaults() {
        return new RequestLimitsConfig(DEFAULT_MAX_ENDPOINT_BYTES, DEFAULT_MAX_TOKEN_BYTES, DEFAULT_SUBSCRIBES_PER_SECOND,
                DEFAULT_SUBSCRIBE_BURST, DEFAULT_PUBLISHES_IN_FLIGHT, DEFAULT_PUBLISH_BYTES_IN_FLIGHT);
    }

    @JsonCreator
    static RequestLimitsConfig fromYaml(@JsonProperty("maxEndpointBytes") Integer maxEndpointBytes,
                                        @JsonProperty("maxTokenBytes") Integer maxTokenBytes,
                                        @JsonProperty("subscribesPerSecond") Double subscribesPerSecond,
                                        @JsonProperty("subscribeBurst") Integer subscribeBurst,
                                        @JsonProperty("publishesInFlight") Integer publishesInFlight,
                                        @JsonProperty("publishBytesInFlight") Integer publishBytesInFlight) {
        return new RequestLimitsConfig(
                maxEndpointBytes == null ? DEFAULT_MAX_ENDPOINT_BYTES : maxEndpointBytes,
                maxTokenBytes == null ? DEFAULT_MAX_TOKEN_BYTES : maxTokenBytes,
                subscribesPerSecond == null ? DEFAULT_SUBSCRIBES_PER_SECOND : subscribesPerSecond,
                subscribeBurst == null ? DEFAULT_SUBSCRIBE_BURST : subscribeBurst,
                publishesInFlight == null ? DEFAULT_PUBLISHES_IN_FLIGHT : publishesInFlight,
                publishBytesInFlight == null ? DEFAULT_PUBLISH_BYTES_IN_FLIGHT : publishBytesInFlight);
    }
}
