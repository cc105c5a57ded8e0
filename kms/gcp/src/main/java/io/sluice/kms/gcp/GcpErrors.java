package io.sluice.kms.gcp;

import java.io.IOException;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;

import com.google.api.gax.rpc.ApiException;

import io.sluice.kms.KmsException;
import io.sluice.kms.KmsForbiddenException;
import io.sluice.kms.KmsUnavailableException;
import io.sluice.kms.UnknownKeyException;

/**
 * Cloud KMS's failures as the KMS SPI's, by their canonical code: NOT_FOUND is an unknown key; PERMISSION_DENIED,
 * UNAUTHENTICATED and FAILED_PRECONDITION (a disabled or destroyed key version) are forbidden; UNAVAILABLE,
 * DEADLINE_EXCEEDED, RESOURCE_EXHAUSTED, ABORTED and INTERNAL, and no answer at all, are unavailable (retriable);
 * INVALID_ARGUMENT (a ciphertext this key did not make, or other additional data) and the rest are plain refusals.
 * Over REST the client takes the code from the HTTP status alone, so every 400 is INVALID_ARGUMENT, FAILED_PRECONDITION
 * (a disabled version) included: still a refusal, never "unknown"; {@code resolveKek} reports a disabled primary
 * version as forbidden from the CryptoKey's state.
 */
final class GcpErrors {

    private GcpErrors() {
    }

    static KmsException translate(String what, Throwable e) {
        Throwable cause = e;
        while ((cause instanceof CompletionException || cause instanceof ExecutionException) && cause.getCause() != null) {
            cause = cause.getCause();
        }
        if (cause instanceof KmsException kms) {
            return kms;
        }
        if (cause instanceof ApiException api) {
            String message = what + ": Cloud KMS answered " + api.getStatusCode().getCode() + ": " + bounded(api.getMessage());
            return switch (api.getStatusCode().getCode()) {
                case NOT_FOUND -> new UnknownKeyException(message);
                case PERMISSION_DENIED, UNAUTHENTICATED, FAILED_PRECONDITION -> new KmsForbiddenException(message);
                case UNAVAILABLE, DEADLINE_EXCEEDED, RESOURCE_EXHAUSTED, ABORTED, INTERNAL -> new KmsUnavailableException(message, api);
                // No answer at all (refused, reset): UNKNOWN over an I/O error that is not an HTTP answer.
                case UNKNOWN -> noAnswer(api) ? new KmsUnavailableException(message, api) : new KmsException(message);
                default -> new KmsException(message);
            };
        }
        for (Throwable c = cause; c != null; c = c.getCause()) {
            if (c instanceof IOException) {
                return new KmsUnavailableException(what + ": Cloud KMS unreachable: " + c, cause);
            }
        }
        return new KmsException(what + ": " + cause, cause);
    }

    private static boolean noAnswer(Throwable t) {
        for (Throwable c = t; c != null; c = c.getCause()) {
            if (c instanceof com.google.api.client.http.HttpResponseException) {
                return false;
            }
            if (c instanceof IOException) {
                return true;
            }
        }
        return false;
    }

    private static String bounded(String message) {
        if (message == null) {
            return "";
        }
        return message.length() > 300 ? message.substring(0, 300) + "..." : message;
    }
}
