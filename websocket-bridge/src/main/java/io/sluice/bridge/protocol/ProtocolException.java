package io.sluice.bridge.protocol;

/** A request the bridge refuses; answered with an {@code error} message, the connection stays open. */
public final class ProtocolException extends Exception {

    private static final long serialVersionUID = 1L;

    private final String code;
    private final Long id;

    public ProtocolException(String code, String message, Long id) {
        super(message, null, false, false);
        this.code = code;
        this.id = id;
    }

    /** One of {@link ErrorCodes}. */
    public String code() {
        return code;
    }

    /** The request's id, when it could be read. */
    public Long id() {
        return id;
    }
}
