package io.sluice.auth;

/**
 * Why a token was not accepted. The message is meant for the client and for logs: it says what is wrong
 * (expired, wrong issuer, bad signature, ...) and never contains the token itself. Values quoted from the token
 * were chosen by whoever sent it, so the message is made log-safe ({@link Untrusted}) here, once for every caller.
 */
public final class TokenRejectedException extends Exception {

    private static final long serialVersionUID = 1L;

    /** What kind of problem it is, for metrics and for callers that react differently. */
    public enum Reason {
        /** Not a JWT, or its header or claims do not parse. */
        MALFORMED,
        /** {@code alg: none}: nothing proves who issued it. */
        UNSIGNED,
        /** Signed with an algorithm not on the allow-list, or encrypted. */
        UNSUPPORTED_ALGORITHM,
        /** No configured or published key matches the token's key id and algorithm. */
        UNKNOWN_KEY,
        /** The signature does not verify with any matching key. */
        BAD_SIGNATURE,
        /** The key source (JWKS URL or file) could not be read: not the client's fault. */
        KEYS_UNAVAILABLE,
        EXPIRED,
        NOT_YET_VALID,
        WRONG_ISSUER,
        WRONG_AUDIENCE,
        /** A required claim (sub, exp, iss, aud) is absent. */
        MISSING_CLAIM,
        /** The permissions claim does not follow the documented format. */
        INVALID_PERMISSIONS
    }

    private final Reason reason;

    public TokenRejectedException(Reason reason, String message) {
        super(Untrusted.text(message, Untrusted.MAX_MESSAGE_CHARS));
        this.reason = reason;
    }

    public Reason reason() {
        return reason;
    }
}
