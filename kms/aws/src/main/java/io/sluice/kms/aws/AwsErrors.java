package io.sluice.kms.aws;

import java.util.Set;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;

import software.amazon.awssdk.awscore.exception.AwsServiceException;
import software.amazon.awssdk.core.exception.SdkClientException;
import software.amazon.awssdk.services.kms.model.DependencyTimeoutException;
import software.amazon.awssdk.services.kms.model.DisabledException;
import software.amazon.awssdk.services.kms.model.IncorrectKeyException;
import software.amazon.awssdk.services.kms.model.InvalidCiphertextException;
import software.amazon.awssdk.services.kms.model.KeyUnavailableException;
import software.amazon.awssdk.services.kms.model.KmsInternalException;
import software.amazon.awssdk.services.kms.model.KmsInvalidStateException;
import software.amazon.awssdk.services.kms.model.NotFoundException;

import io.sluice.kms.KmsException;
import io.sluice.kms.KmsForbiddenException;
import io.sluice.kms.KmsUnavailableException;
import io.sluice.kms.UnknownKeyException;

/**
 * AWS KMS's errors as the SPI's exceptions (docs/kms.md, "AWS KMS"): a missing key is unknown; a disabled key, a key
 * pending deletion and every credential or permission error are forbidden (never "unknown", which a filter may treat
 * as "no KEK, pass in plaintext"); throttling, 5xx, a key that is momentarily unavailable, and no answer at all
 * (refused, timed out, no credentials yet) are unavailable, for the key cache to retry; a ciphertext that is not the
 * key's, or not with this encryption context, is a plain refusal. Messages carry AWS's error code and message, which
 * name keys and never key material or credentials.
 */
final class AwsErrors {

    /** Error codes that say who is calling is not allowed to, or not who they claim. */
    private static final Set<String> FORBIDDEN = Set.of("AccessDeniedException", "UnrecognizedClientException", "InvalidSignatureException",
            "IncompleteSignatureException", "ExpiredTokenException", "MissingAuthenticationTokenException", "InvalidClientTokenId",
            "SignatureDoesNotMatch", "KMSInvalidSignatureException");
    private static final Set<String> BUSY = Set.of("ThrottlingException", "ThrottledException", "RequestLimitExceeded", "TooManyRequestsException",
            "ServiceUnavailableException", "InternalFailure");

    private AwsErrors() {
    }

    static KmsException map(Throwable failure, String operation, String key) {
        Throwable t = failure;
        while ((t instanceof CompletionException || t instanceof ExecutionException) && t.getCause() != null) {
            t = t.getCause();
        }
        if (t instanceof KmsException kms) {
            return kms;
        }
        String what = "AWS KMS cannot " + operation + " key '" + key + "': ";
        if (t instanceof NotFoundException) {
            return new UnknownKeyException(what + detail(t));
        }
        if (t instanceof DisabledException || t instanceof KmsInvalidStateException) {
            return new KmsForbiddenException(what + "the key is disabled or pending deletion (" + detail(t) + ")", t);
        }
        if (t instanceof KeyUnavailableException || t instanceof KmsInternalException || t instanceof DependencyTimeoutException) {
            return new KmsUnavailableException(what + detail(t), t);
        }
        if (t instanceof InvalidCiphertextException || t instanceof IncorrectKeyException) {
            return new KmsException(what + "not a ciphertext of this key with this encryption context (" + detail(t) + ")", t);
        }
        if (t instanceof AwsServiceException service) {
            String code = service.awsErrorDetails() == null ? "" : String.valueOf(service.awsErrorDetails().errorCode());
            int status = service.statusCode();
            if (FORBIDDEN.contains(code) || status == 401 || status == 403) {
                return new KmsForbiddenException(what + detail(t), t);
            }
            if (BUSY.contains(code) || status == 429 || status >= 500) {
                return new KmsUnavailableException(what + detail(t), t);
            }
            return new KmsException(what + detail(t), t);
        }
        if (t instanceof SdkClientException) {
            // No answer from KMS: unreachable, timed out, or no credentials from the chain yet (an IMDS or STS outage).
            return new KmsUnavailableException(what + "no answer: " + t.getMessage(), t);
        }
        return new KmsException(what + t, t);
    }

    private static String detail(Throwable t) {
        if (t instanceof AwsServiceException service && service.awsErrorDetails() != null) {
            String message = service.awsErrorDetails().errorMessage();
            return service.awsErrorDetails().errorCode() + (message == null || message.isBlank() ? "" : ": " + message)
                    + " (HTTP " + service.statusCode() + ")";
        }
        return String.valueOf(t.getMessage());
    }
}
