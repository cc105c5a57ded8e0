package io.sluice.kms;

/** The KMS has no key-encryption key of that name (or in that namespace, or that version). Not retriable. */
public class UnknownKeyException extends KmsException {

    private static final long serialVersionUID = 1L;

    public UnknownKeyException(String message) {
        super(message);
    }
}
