package io.sluice.proxy.codec;

/** A peer broke the Kafka protocol; the connection it came from is closed and the reason logged. */
public final class ProtocolException extends RuntimeException {

    public enum Reason {
        FRAME_TOO_LARGE("frame_too_large"),
        MALFORMED("malformed"),
        UNSUPPORTED_API("unsupported_api"),
        UNEXPECTED_RESPONSE("unexpected_response");

        private final String metricName;

        Reason(String metricName) {
            this.metricName = metricName;
        }

        public String metricName() {
            return metricName;
        }
    }

    private final Reason reason;

    public ProtocolException(Reason reason, String message) {
        super(message);
        this.reason = reason;
    }

    public ProtocolException(Reason reason, String message, Throwable cause) {
        super(message, cause);
        this.reason = reason;
    }

    public Reason reason() {
        return reason;
    }
}
