package io.sluice.kms;

import java.util.Optional;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;

/**
 * A KMS operation failed. Stages returned by {@link Kms} complete exceptionally with one of these; stages derived from
 * them wrap it in a {@link CompletionException}, which {@link #find(Throwable)} sees through.
 *
 * <p>Subtypes say what the caller can do: {@link KmsUnavailableException} is worth retrying,
 * {@link UnknownKeyException} and {@link KmsForbiddenException} are not. A plain {@code KmsException} is anything else
 * that retrying will not fix, such as a wrapped key the KMS cannot decrypt.
 *
 * <p>Messages name keys and operations, never key material or credentials.
 */
public class KmsException extends RuntimeException {

    private static final long serialVersionUID = 1L;

    public KmsException(String message) {
        super(message);
    }

    public KmsException(String message, Throwable cause) {
        super(message, cause);
    }

    /** Whether the same call may succeed later without anyone changing the KMS's configuration. */
    public boolean isRetriable() {
        return false;
    }

    /** The {@code KmsException} in a failure's cause chain, looking through completion and execution wrappers. */
    public static Optional<KmsException> find(Throwable failure) {
        Throwable t = failure;
        while (t != null) {
            if (t instanceof KmsException kms) {
                return Optional.of(kms);
            }
            if (!(t instanceof CompletionException || t instanceof ExecutionException)) {
                return Optional.empty();
            }
            t = t.getCause();
        }
        return Optional.empty();
    }
}
