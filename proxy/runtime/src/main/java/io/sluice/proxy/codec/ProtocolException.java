package io.sluice.proxy.codec;

/**
 * A peer broke the Kafka protocol or a limit on what an unauthenticated client may do; the connection it came
 * from is closed, the reason counted and logged.
 */
public final class ProtocolException extends RuntimeException {

    public enum Reason {
        FRAME_TOO_LARGE("frame_too_large"),
        MALFORMED("malformed"),
        UNSUPPORTED_API("unsupported_api"),
        UNEXPECTED_RESPONSE("unexpected_response"),
        PRE_AUTHENTICATION_FRAME_TOO_LARGE("pre_auth_frame_too_large"),
        PRE_AUTHENTICATION_TIMEOUT("pre_auth_timeout"),
        PRE_AUTHENTICATION_QUEUE_FULL("pre_auth_queue_full"),
        CLIENT_NOT_READING("client_not_reading"),
        IDLE("idle");

        private final String metricName;

        Reason(String metricName) {
            this.metricName = metricName;
        }

        public String metricName() {
            return metricName;
        }

        /** Limits any client can hit by the dozen, authenticated or not; their log lines are rate-limited. */
        public boolean anyClientCanCause() {
            return this == PRE_AUTHENTICATION_FRAME_TOO_LARGE || this == PRE_AUTHENTICATION_TIMEOUT || this == PRE_AUTHENTICATION_QUEUE_FULL
                    || this == CLIENT_NOT_READING || this == IDLE;
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
