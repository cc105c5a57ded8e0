package io.sluice.kms;

/**
 * The KMS refused the caller: bad or expired credentials, or a policy that does not allow the operation on that key.
 * Not retriable: someone has to fix credentials or policy.
 */
public class KmsForbiddenException extends KmsException {

    private static final long serialVersionUID = 1L;

    public KmsForbiddenException(String message) {
        super(message);
    }

    public KmsForbiddenException(String message, Throwable cause) {
        super(message, cause);
    }
}
