package io.sluice.bridge.mqtt;

import io.sluice.bridge.protocol.CloseCodes;
import io.sluice.bridge.protocol.ErrorCodes;

/**
 * The bridge's error and close codes as MQTT reason codes (MQTT 5.0, 2.4; the table in docs/bridge-mqtt.md). MQTT
 * 3.1.1 has only SUBACK's 0x80 and CONNACK's five return codes, so it gets those.
 */
final class Reasons {

    static final int SUCCESS = 0x00;
    static final int NO_SUBSCRIPTION_EXISTED = 0x11;
    static final int UNSPECIFIED = 0x80;
    static final int MALFORMED_PACKET = 0x81;
    static final int PROTOCOL_ERROR = 0x82;
    static final int IMPLEMENTATION_SPECIFIC = 0x83;
    static final int NOT_AUTHORIZED = 0x87;
    static final int SERVER_BUSY = 0x89;
    static final int SERVER_SHUTTING_DOWN = 0x8B;
    static final int BAD_AUTHENTICATION_METHOD = 0x8C;
    static final int KEEP_ALIVE_TIMEOUT = 0x8D;
    static final int SESSION_TAKEN_OVER = 0x8E;
    static final int TOPIC_FILTER_INVALID = 0x8F;
    static final int TOPIC_NAME_INVALID = 0x90;
    static final int TOPIC_ALIAS_INVALID = 0x94;
    static final int PACKET_TOO_LARGE = 0x95;
    static final int QUOTA_EXCEEDED = 0x97;
    static final int PAYLOAD_FORMAT_INVALID = 0x99;
    static final int QOS_NOT_SUPPORTED = 0x9B;
    static final int SHARED_SUBSCRIPTIONS_NOT_SUPPORTED = 0x9E;
    static final int MAXIMUM_CONNECT_TIME = 0xA0;

    private Reasons() {
    }

    /** A refused subscribe's SUBACK code. */
    static int subscribe(String errorCode, boolean v5) {
        if (!v5) {
            return UNSPECIFIED;
        }
        return switch (errorCode) {
            case ErrorCodes.FORBIDDEN -> NOT_AUTHORIZED;
            case ErrorCodes.UNKNOWN_ENDPOINT, ErrorCodes.MALFORMED -> TOPIC_FILTER_INVALID;
            case ErrorCodes.RATE_LIMITED, ErrorCodes.TOO_MANY_SUBSCRIPTIONS, ErrorCodes.TOO_MANY_GROUPS, ErrorCodes.BUSY -> QUOTA_EXCEEDED;
            default -> IMPLEMENTATION_SPECIFIC;
        };
    }

    /** A refused or failed publish's PUBACK code (MQTT 5). */
    static int publish(String errorCode) {
        return switch (errorCode) {
            case ErrorCodes.FORBIDDEN -> NOT_AUTHORIZED;
            case ErrorCodes.UNKNOWN_ENDPOINT, ErrorCodes.MALFORMED -> TOPIC_NAME_INVALID;
            case ErrorCodes.BUSY -> QUOTA_EXCEEDED;
            case ErrorCodes.INVALID_PAYLOAD -> PAYLOAD_FORMAT_INVALID;
            default -> UNSPECIFIED;
        };
    }

    /** The DISCONNECT reason for a session's close code (MQTT 5). */
    static int disconnect(int closeCode) {
        return switch (closeCode) {
            case CloseCodes.GOING_AWAY -> SERVER_SHUTTING_DOWN;
            case CloseCodes.MESSAGE_TOO_BIG -> PACKET_TOO_LARGE;
            case CloseCodes.TRY_AGAIN_LATER -> SERVER_BUSY;
            case CloseCodes.AUTHENTICATION_FAILED -> NOT_AUTHORIZED;
            // The session's time is the token's: MQTT 5's "maximum connect time" says reconnect (with a new token).
            case CloseCodes.TOKEN_EXPIRED -> MAXIMUM_CONNECT_TIME;
            case CloseCodes.SLOW_CLIENT -> QUOTA_EXCEEDED;
            default -> UNSPECIFIED;
        };
    }
}
