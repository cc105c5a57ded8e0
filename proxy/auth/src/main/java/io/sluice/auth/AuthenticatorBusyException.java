package io.sluice.auth;

/**
 * {@link TokenAuthenticator#authenticateAsync} refused a token because too many validations are already waiting.
 * Not the token's fault: the caller should tell the client to try again later, not that its token is bad.
 */
public final class AuthenticatorBusyException extends RuntimeException {

    private static final long serialVersionUID = 1L;

    public AuthenticatorBusyException() {
        super("too many token validations are waiting; try again later");
    }
}
