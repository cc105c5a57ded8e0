package io.sluice.bridge.protocol;

/** A request the bridge refuses; answered with an {@code error} message, the connection stays open. */
public final class RequestRefusedException extends Exception {

    private static final long serialVersionUID = 1L;

    private final String code;
    private final Long id;
    private final long retryAfterMillis;

    public RequestRefusedException(String code, String message, Long id) {
        this(code, message, id, -1);
    }

    /** @param retryAfterMillis when the same request can succeed again, sent as {@code retryAfterMs}; -1 if unknown */
    public RequestRefusedException(String code, String message, Long id, long retryAfterMillis) {
        super(message, null, false, false);
        this.code = code;
        this.id = id;
        this.retryAfterMillis = retryAfterMillis;
    }

    /** One of {@link ErrorCodes}. */
    public String code() {
        return code;
    }

    /** The request's id, when it could be read. */
    public Long id() {
        return id;
    }

    /** Milliseconds after which a retry can succeed, or -1. */
    public long retryAfterMillis() {
        return retryAfterMillis;
    }
}
