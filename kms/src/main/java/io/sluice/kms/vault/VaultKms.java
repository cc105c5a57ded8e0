package io.sluice.kms.vault;

import java.nio.charset.StandardCharsets;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ExecutorService;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import javax.crypto.SecretKey;

import io.sluice.kms.AesKey;
import io.sluice.kms.DataKey;
import io.sluice.kms.KekRef;
import io.sluice.kms.Kms;
import io.sluice.kms.KmsException;
import io.sluice.kms.KmsForbiddenException;
import io.sluice.kms.KmsUnavailableException;
import io.sluice.kms.UnknownKeyException;
import io.sluice.kms.WrappedKey;

/**
 * HashiCorp Vault (or OpenBao) Transit as a KMS: {@code GET keys/:name} resolves a KEK,
 * {@code POST datakey/plaintext/:name} makes a data key, {@code POST decrypt/:name} unwraps one. Wrapped keys are
 * Transit ciphertexts ({@code vault:v3:...}), which name the KEK version, so rotation strands nothing.
 *
 * <p>Calls are asynchronous HTTP; a 403 makes the session get a new token (when its credentials can) and the call is
 * sent once more. Status codes map to exceptions: 403 forbidden; 404, or 400 "not found", unknown key; 412, 429 and
 * 5xx, or no answer, unavailable; anything else a plain {@link KmsException}.
 */
final class VaultKms implements Kms {

    private static final Pattern KEY_NAME = Pattern.compile("[A-Za-z0-9][A-Za-z0-9_.-]{0,255}");
    private static final Pattern CIPHERTEXT = Pattern.compile("vault:v(\\d{1,9}):[A-Za-z0-9+/=]+");
    private static final String DATA_KEY_REQUEST = "{\"bits\":256}";

    private final TransitClient transit;
    private final VaultSession session;
    private final ExecutorService httpExecutor;

    VaultKms(TransitClient transit, VaultSession session, ExecutorService httpExecutor) {
        this.transit = transit;
        this.session = session;
        this.httpExecutor = httpExecutor;
    }

    @Override
    public CompletionStage<KekRef> resolveKek(String name) {
        if (!validName(name)) {
            return invalidName(name);
        }
        return plain(call("keys/" + name, null).thenApply(reply -> {
            if (reply.status != 200) {
                throw error(reply, "read", name);
            }
            return new KekRef(name, number(reply.data.get("latest_version"), "latest_version"));
        }));
    }

    @Override
    public CompletionStage<DataKey> generateDataKey(KekRef kek) {
        String name = kek.name();
        if (!validName(name)) {
            return invalidName(name);
        }
        return plain(call("datakey/plaintext/" + name, DATA_KEY_REQUEST).thenApply(reply -> {
            byte[] plaintext = reply.takePlaintext();
            try {
                if (reply.status != 200) {
                    throw error(reply, "generate a data key with", name);
                }
                String ciphertext = reply.data.get("ciphertext");
                Matcher m = ciphertext == null ? null : CIPHERTEXT.matcher(ciphertext);
                if (plaintext == null || m == null || !m.matches()) {
                    throw new KmsException("Vault's data key response for " + name + " lacks plaintext or ciphertext");
                }
                WrappedKey wrapped = new WrappedKey(name, ciphertext.getBytes(StandardCharsets.US_ASCII));
                return new DataKey(new KekRef(name, Integer.parseInt(m.group(1))), aesKey(plaintext, name), wrapped);
            }
            finally {
                AesKey.wipe(plaintext);
            }
        }));
    }

    @Override
    public CompletionStage<SecretKey> unwrap(WrappedKey wrapped) {
        String name = wrapped.kekName();
        if (!validName(name)) {
            return invalidName(name);
        }
        String ciphertext = wrapped.ciphertextText();
        if (!CIPHERTEXT.matcher(ciphertext).matches()) {
            return CompletableFuture.failedFuture(new KmsException("not a Vault Transit ciphertext (key " + name + ")"));
        }
        // The pattern admits no quote or backslash, so the ciphertext needs no JSON escaping.
        String body = "{\"ciphertext\":\"" + ciphertext + "\"}";
        return plain(call("decrypt/" + name, body).thenApply(reply -> {
            byte[] plaintext = reply.takePlaintext();
            try {
                if (reply.status != 200) {
                    throw error(reply, "decrypt with", name);
                }
                if (plaintext == null) {
                    throw new KmsException("Vault's decrypt response for " + name + " lacks plaintext");
                }
                return aesKey(plaintext, name);
            }
            finally {
                AesKey.wipe(plaintext);
            }
        }));
    }

    @Override
    public void close() {
        session.close();
        httpExecutor.shutdown();
    }

    /** Sends with the session's token; on 403, once more with a replacement token if there is one. */
    private CompletableFuture<VaultReply> call(String path, String body) {
        return session.token().thenCompose(token -> transit.send(path, body, token).thenCompose(reply -> {
            if (reply.status != 403) {
                return CompletableFuture.completedFuture(reply);
            }
            return session.replace(token).thenCompose(fresh -> fresh.equals(token)
                    ? CompletableFuture.completedFuture(reply)
                    : transit.send(path, body, fresh));
        }));
    }

    static KmsException error(VaultReply reply, String operation, String key) {
        String what = "Vault cannot " + operation + " Transit key '" + key + "': " + reply.errorText();
        int status = reply.status;
        if (status == 403) {
            return new KmsForbiddenException(what);
        }
        if (status == 404 || status == 400 && reply.errors.stream().anyMatch(e -> e.contains("not found"))) {
            return new UnknownKeyException(what);
        }
        if (status == 412 || status == 429 || status >= 500) {
            return new KmsUnavailableException(what);
        }
        return new KmsException(what);
    }

    private static AesKey aesKey(byte[] plaintext, String name) {
        return AesKey.aes256From(plaintext, "Vault's key for " + name);
    }

    private static int number(String value, String field) {
        try {
            return Integer.parseInt(value);
        }
        catch (NumberFormatException e) {
            throw new KmsException("Vault's response lacks a numeric " + field);
        }
    }

    private static boolean validName(String name) {
        return name != null && KEY_NAME.matcher(name).matches();
    }

    private static <T> CompletionStage<T> invalidName(String name) {
        return CompletableFuture.failedFuture(new UnknownKeyException("'" + name + "' is not a valid Transit key name"));
    }

    /** Fails with the KmsException itself, not wrapped in a CompletionException, like the other providers. */
    private static <T> CompletableFuture<T> plain(CompletableFuture<T> stage) {
        CompletableFuture<T> result = new CompletableFuture<>();
        stage.whenComplete((value, failure) -> {
            if (failure == null) {
                result.complete(value);
            }
            else {
                Throwable cause = failure instanceof CompletionException && failure.getCause() != null ? failure.getCause() : failure;
                result.completeExceptionally(cause);
            }
        });
        return result;
    }

    @Override
    public String toString() {
        return "VaultKms[" + transit + ", " + session + "]";
    }
}
