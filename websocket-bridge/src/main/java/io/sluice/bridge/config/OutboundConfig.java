package io.sluice.bridge.config;

import java.time.Duration;

import com.fasterxml.jackson.annotation.JsonCreator;
import com.fasterxml.jackson.annotation.JsonProperty;

/**
 * Per-connection limits on bytes waiting to be sent, so a slow client never holds up anyone else.
 *
 * @param highWaterMarkBytes above this many queued bytes the connection conflates: only the latest message per
 *                           endpoint is kept until it drains
 * @param lowWaterMarkBytes  below this the connection is sent what was kept, and delivery is normal again
 * @param maxBytes           bytes held for the connection above this close it with 4008: its socket queue (messages,
 *                           replies, pongs), conflated messages, messages waiting behind a recovery and the recovery
 *                           backlog (a recovery is cut to half of it, the rest reported as a gap)
 * @param maxSlowTime        how long a connection may be behind: above the high-water mark without a pause at any
 *                           stage (closed at once), or, after the upgrade, not caught up (closed with 4008); conflation
 *                           bounds its memory, this bounds how long it is held
 * @param slowCloseGrace     how long a connection closed with 4008 is given to read its close frame (or an SSE
 *                           stream its {@code close} event) before the socket or stream is cut: what it holds is
 *                           released at once, only the close itself waits
 */
public record OutboundConfig(int highWaterMarkBytes, int lowWaterMarkBytes, int maxBytes, Duration maxSlowTime,
                             Duration slowCloseGrace) {

    public static final int DEFAULT_HIGH_WATER_MARK_BYTES = 1024 * 1024;
    public static final int DEFAULT_LOW_WATER_MARK_BYTES = 512 * 1024;
    public static final int DEFAULT_MAX_BYTES = 8 * 1024 * 1024;
    public static final Duration DEFAULT_MAX_SLOW_TIME = Duration.ofSeconds(60);
    /** Long enough for a slow but reading client to learn why it was closed; nothing but the close waits for it. */
    public static final Duration DEFAULT_SLOW_CLOSE_GRACE = Duration.ofSeconds(10);

    public OutboundConfig {
        maxSlowTime = maxSlowTime == null ? DEFAULT_MAX_SLOW_TIME : maxSlowTime;
        slowCloseGrace = slowCloseGrace == null ? DEFAULT_SLOW_CLOSE_GRACE : slowCloseGrace;
    }

    public static OutboundConfig defaults() {
        return new OutboundConfig(DEFAULT_HIGH_WATER_MARK_BYTES, DEFAULT_LOW_WATER_MARK_BYTES, DEFAULT_MAX_BYTES, null, null);
    }

    @JsonCreator
    static OutboundConfig fromYaml(@JsonProperty("highWaterMarkBytes") Integer highWaterMarkBytes,
                                   @JsonProperty("lowWaterMarkBytes") Integer lowWaterMarkBytes,
                                   @JsonProperty("maxBytes") Integer maxBytes,
                                   @JsonProperty("maxSlowTime") Duration maxSlowTime,
                                   @JsonProperty("slowCloseGrace") Duration slowCloseGrace) {
        return new OutboundConfig(
                highWaterMarkBytes == null ? DEFAULT_HIGH_WATER_MARK_BYTES : highWaterMarkBytes,
                lowWaterMarkBytes == null ? DEFAULT_LOW_WATER_MARK_BYTES : lowWaterMarkBytes,
                maxBytes == null ? DEFAULT_MAX_BYTES : maxBytes, maxSlowTime, slowCloseGrace);
    }
}
