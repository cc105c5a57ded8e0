package io.sluice.bridge.auth;

/** A token that does not authenticate. The message reaches the client. */
public final class AuthenticationException extends RuntimeException {

    private static final long serialVersionUID = 1L;

    public AuthenticationException(String message) {
        super(message, null, false, false);
    }
}
