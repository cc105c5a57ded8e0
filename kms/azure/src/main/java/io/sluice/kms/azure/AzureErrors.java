package io.sluice.kms.azure;

import java.io.IOException;
import java.util.concurrent.CompletionException;
import java.util.concurrent.TimeoutException;

import com.azure.core.exception.ClientAuthenticationException;
import com.azure.core.exception.HttpResponseException;

import io.sluice.kms.KmsException;
import io.sluice.kms.KmsForbiddenException;
import io.sluice.kms.KmsUnavailableException;
import io.sluice.kms.UnknownKeyException;

/**
 * Key Vault's failures as the KMS SPI's: 404 is an unknown key; 401 and 403 (no role, a disabled or expired key, a
 * firewall refusal) are forbidden; 408, 429 and 5xx, a timeout, and no answer at all (connection refused or reset) are
 * unavailable, the only retriable ones; anything else (400: not a ciphertext of this key) is a plain refusal. Messages
 * carry Key Vault's error code and message, never a request or response body.
 */
final class AzureErrors {

    private AzureErrors() {
    }

    static KmsException translate(String what, Throwable e) {
        Throwable cause = e instanceof CompletionException && e.getCause() != null ? e.getCause() : e;
        if (cause instanceof KmsException kms) {
            return kms;
        }
        if (cause instanceof HttpResponseException http && http.getResponse() != null) {
            int status = http.getResponse().getStatusCode();
            String message = what + ": Key Vault answered " + status + " " + brief(http);
            if (status == 404) {
                return new UnknownKeyException(message);
            }
            if (status == 401 || status == 403) {
                return new KmsForbiddenException(message);
            }
            if (status == 408 || status == 429 || status >= 500) {
                return new KmsUnavailableException(message);
            }
            return new KmsException(message);
        }
        if (cause instanceof ClientAuthenticationException auth) {
            // No token: the identity endpoint said no, or no credential of the chain applies here.
            return new KmsForbiddenException(what + ": no Azure token: " + auth.getMessage());
        }
        if (timeoutOrIo(cause)) {
            return new KmsUnavailableException(what + ": Key Vault unreachable: " + cause, cause);
        }
        return new KmsException(what + ": " + cause, cause);
    }

    private static boolean timeoutOrIo(Throwable t) {
        for (Throwable c = t; c != null; c = c.getCause()) {
            if (c instanceof IOException || c instanceof TimeoutException || c instanceof java.io.UncheckedIOException) {
                return true;
            }
        }
        return false;
    }

    /** The error's code and message as Key Vault put them in its JSON, bounded: never the whole body. */
    private static String brief(HttpResponseException http) {
        String message = http.getMessage() == null ? "" : http.getMessage();
        return message.length() > 300 ? message.substring(0, 300) + "..." : message;
    }
}
