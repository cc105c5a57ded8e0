package io.sluice.bridge.protocol;

/** The {@code code} values of {@code error} messages, documented in docs/bridge-protocol.md. */
public final class ErrorCodes {

    public static final String MALFORMED = "malformed";
    public static final String UNKNOWN_TYPE = "unknown_type";
    public static final String NOT_CONNECTED = "not_connected";
    public static final String ALREADY_CONNECTED = "already_connected";
    public static final String INVALID_TOKEN = "invalid_token";
    public static final String UNKNOWN_ENDPOINT = "unknown_endpoint";
    public static final String FORBIDDEN = "forbidden";
    public static final String ALREADY_SUBSCRIBED = "already_subscribed";
    public static final String NOT_SUBSCRIBED = "not_subscribed";
    public static final String TOO_MANY_SUBSCRIPTIONS = "too_many_subscriptions";
    public static final String PUBLISH_FAILED = "publish_failed";
    public static final String RECOVERY_FAILED = "recovery_failed";

    private ErrorCodes() {
    }
}
