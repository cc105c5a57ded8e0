package io.sluice.proxy.runtime;

/** A server name an SNI listener does not route, and why; completes {@link SniRoutes#route} exceptionally. */
public final class SniRefusedException extends RuntimeException {

    private final SniRefusal reason;

    public SniRefusedException(SniRefusal reason, String detail) {
        // An expected outcome any client can cause: no stack trace to fill.
        super(detail, null, false, false);
        this.reason = reason;
    }

    public SniRefusal reason() {
        return reason;
    }
}
