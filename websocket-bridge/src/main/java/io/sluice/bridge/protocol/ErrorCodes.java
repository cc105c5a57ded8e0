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
    /** A subscribe's filter or field list is not valid (docs/bridge-filters.md). */
    public static final String INVALID_FILTER = "invalid_filter";
    /** A subscribe's filter or field list is over a {@code filters} limit. */
    public static final String FILTER_TOO_LARGE = "filter_too_large";
    /** The endpoint already has {@code filters.maxGroupsPerEndpoint} distinct (filter, fields) pairs on this node. */
    public static final String TOO_MANY_GROUPS = "too_many_groups";
    /** A publish whose payload does not fit its topic's format (docs/bridge-formats.md); nothing was written. */
    public static final String INVALID_PAYLOAD = "invalid_payload";
    /**
     * The node (or this connection) has as much of this work in flight as it takes: Kafka log reads for recovery, or a
     * {@code refresh} still being validated. Nothing was done; send the request again after a backoff.
     */
    public static final String BUSY = "busy";
    /** The connection subscribes faster than {@code requests.subscribesPerSecond}; retry after {@code retryAfterMs}. */
    public static final String RATE_LIMITED = "rate_limited";
    /** An SSE stream refused because its token's subject holds {@code connections.maxConnectionsPerSubject} already. */
    public static final String TOO_MANY_CONNECTIONS = "too_many_connections";

    private ErrorCodes() {
    }
}
