package io.sluice.bridge.auth;

/**
 * A token that does not authenticate, or one that could not be validated now because the node is validating as many
 * tokens as it takes ({@link #busy()}: not the token's fault; the same token may be sent again after a backoff). The
 * message reaches the client.
 */
public final class AuthenticationException extends RuntimeException {

    private static final long serialVersionUID = 1L;

    private final boolean busy;

    public AuthenticationException(String message) {
        this(message, false);
    }

    private AuthenticationException(String message, boolean busy) {
        super(message, null, false, false);
        this.busy = busy;
    }

    /** The token was not looked at: too many validations are waiting. */
    public static AuthenticationException busy(String message) {
        return new AuthenticationException(message, true);
    }

    /** Whether retrying the same token later can succeed: the node was busy, the token not judged. */
    public boolean busy() {
        return busy;
    }
}
