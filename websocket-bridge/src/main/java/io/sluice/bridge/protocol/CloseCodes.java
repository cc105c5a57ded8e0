package io.sluice.bridge.protocol;

/**
 * WebSocket close codes the bridge sends, documented in docs/bridge-protocol.md. The 4xxx range is reserved by RFC 6455
 * for applications; a client decides from the code alone whether reconnecting can help.
 */
public final class CloseCodes {

    /** The server is shutting down; reconnect (to any node) and recover. */
    public static final int GOING_AWAY = 1001;
    /** A message exceeded {@code server.maxInboundMessageBytes}; sent by the WebSocket layer itself. */
    public static final int MESSAGE_TOO_BIG = 1009;
    /**
     * RFC 6455's registered "Try Again Later": the node was validating as many tokens as it takes
     * ({@code auth.jwt.maxQueuedValidations}) and did not look at this one. Reconnect with the same token after a backoff.
     */
    public static final int TRY_AGAIN_LATER = 1013;
    /** No valid {@code connect} in time, or the token was rejected. Reconnect only with a new token. */
    public static final int AUTHENTICATION_FAILED = 4001;
    /** The token expired and was not refreshed. Reconnect with a new token and recover. */
    public static final int TOKEN_EXPIRED = 4002;
    /** The client did not read fast enough: its queued and conflated bytes passed {@code outbound.maxBytes}, or it stayed above the high-water mark for {@code outbound.maxSlowTime}. Reconnect and recover. */
    public static final int SLOW_CLIENT = 4008;

    private CloseCodes() {
    }
}
