package io.sluice.bridge.config;

import com.fasterxml.jackson.annotation.JsonCreator;
import com.fasterxml.jackson.annotation.JsonProperty;

/**
 * Per-connection limits on bytes waiting to be sent, so a slow client never holds up anyone else.
 *
 * @param highWaterMarkBytes above this many queued bytes the connection conflates: only the latest message per
 *                           endpoint is kept until it drains
 * @param lowWaterMarkBytes  below this the connection is sent what was kept, and delivery is normal again
 * @param maxBytes           queued plus kept bytes above this close the connection with 4008
 */
public record OutboundConfig(int highWaterMarkBytes, int lowWaterMarkBytes, int maxBytes) {

    public static final int DEFAULT_HIGH_WATER_MARK_BYTES = 1024 * 1024;
    public static final int DEFAULT_LOW_WATER_MARK_BYTES = 512 * 1024;
    public static final int DEFAULT_MAX_BYTES = 8 * 1024 * 1024;

    public static OutboundConfig defaults() {
        return new OutboundConfig(DEFAULT_HIGH_WATER_MARK_BYTES, DEFAULT_LOW_WATER_MARK_BYTES, DEFAULT_MAX_BYTES);
    }

    @JsonCreator
    static OutboundConfig fromYaml(@JsonProperty("highWaterMarkBytes") Integer highWaterMarkBytes,
                                   @JsonProperty("lowWaterMarkBytes") Integer lowWaterMarkBytes,
                                   @JsonProperty("maxBytes") Integer maxBytes) {
        return new OutboundConfig(
                highWaterMarkBytes == null ? DEFAULT_HIGH_WATER_MARK_BYTES : highWaterMarkBytes,
                lowWaterMarkBytes == null ? DEFAULT_LOW_WATER_MARK_BYTES : lowWaterMarkBytes,
                maxBytes == null ? DEFAULT_MAX_BYTES : maxBytes);
    }
}
