package io.sluice.kms;

/**
 * The KMS could not be reached or could not answer now (connection refused, timeout, sealed, rate limited, 5xx).
 * Retriable: the same call is expected to succeed once the KMS is back.
 */
public class KmsUnavailableException extends KmsException {

    private static final long serialVersionUID = 1L;

    public KmsUnavailableException(String message) {
        super(message);
    }

    public KmsUnavailableException(String message, Throwable cause) {
        super(message, cause);
    }

    @Override
    public boolean isRetriable() {
        return true;
    }
}
