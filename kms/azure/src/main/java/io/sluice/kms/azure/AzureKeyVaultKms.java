package io.sluice.kms.azure;

import java.security.SecureRandom;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ExecutorService;
import java.util.function.Function;
import java.util.regex.Pattern;

import javax.crypto.SecretKey;

import com.azure.security.keyvault.keys.cryptography.CryptographyAsyncClient;

import io.sluice.kms.AesKey;
import io.sluice.kms.DataKey;
import io.sluice.kms.KekRef;
import io.sluice.kms.Kms;
import io.sluice.kms.KmsException;
import io.sluice.kms.KmsForbiddenException;
import io.sluice.kms.UnknownKeyException;
import io.sluice.kms.WrappedKey;
import reactor.core.publisher.Mono;

/**
 * The KMS SPI over Azure Key Vault. In: KEK names (Key Vault key names). Out: data keys generated here (SecureRandom,
 * AES-256) and wrapped by the key's current version with {@code wrapKey}; the wrapped form records the version Key
 * Vault used (from the answer's key id), so after a rotation (a new key version) old data keys still unwrap with the
 * version that wrapped them. Every call goes to Key Vault (the SDK's local cryptography is off): a disabled key or a
 * withdrawn role stops the proxy at once, and only wrap, unwrap and get are needed.
 *
 * <p>Asynchronous: each call is a Reactor {@code Mono} on the JDK's HTTP client, completed on this provider's own
 * threads, never the caller's (an event loop). A key name is checked before it goes into a URL: names come from
 * records too.
 */
final class AzureKeyVaultKms implements Kms {

    /** Key Vault's key names: 1 to 127 letters, digits and dashes. */
    private static final Pattern KEY_NAME = Pattern.compile("[0-9A-Za-z-]{1,127}");
    /** Clients kept, by key id: each holds its authentication challenge; names come from records, so the map is bounded. */
    private static final int MAX_CLIENTS = 256;

    private final Function<String, CryptographyAsyncClient> clientFactory;
    private final AzureKeyVaultAlgorithm algorithm;
    private final Duration requestTimeout;
    private final ExecutorService executor;
    private final String description;
    private final SecureRandom random = new SecureRandom();
    private final Map<String, CryptographyAsyncClient> clients = new LinkedHashMap<>(16, 0.75f, true) {
        @Override
        protected boolean removeEldestEntry(Map.Entry<String, CryptographyAsyncClient> eldest) {
            return size() > MAX_CLIENTS;
        }
    };

    /**
     * @param clientFactory a client for a key id path ({@code name} or {@code name/version}) of the vault
     */
    AzureKeyVaultKms(Function<String, CryptographyAsyncClient> clientFactory, AzureKeyVaultAlgorithm algorithm, Duration requestTimeout,
                     ExecutorService executor, String description) {
        this.clientFactory = clientFactory;
        this.algorithm = algorithm;
        this.requestTimeout = requestTimeout;
        this.executor = executor;
        this.description = description;
    }

    @Override
    public CompletionStage<KekRef> resolveKek(String name) {
        if (!KEY_NAME.matcher(name).matches()) {
            return CompletableFuture.failedFuture(new UnknownKeyException("'" + name + "' is not a Key Vault key name"));
        }
        return call("KEK '" + name + "'", client(name).getKey(), key -> {
            if (!Boolean.TRUE.equals(key.getProperties().isEnabled())) {
                throw new KmsForbiddenException("KEK '" + name + "': the key is disabled in Key Vault");
            }
            return new KekRef(name, 1);
        });
    }

    @Override
    public CompletionStage<DataKey> generateDataKey(KekRef kek) {
        if (!KEY_NAME.matcher(kek.name()).matches()) {
            return CompletableFuture.failedFuture(new UnknownKeyException("'" + kek.name() + "' is not a Key Vault key name"));
        }
        byte[] material = new byte[32];
        random.nextBytes(material);
        AesKey key = AesKey.copyOf(material);
        Mono<com.azure.security.keyvault.keys.cryptography.models.WrapResult> wrap = client(kek.name()).wrapKey(algorithm.sdk(), material);
        CompletionStage<DataKey> result = call("KEK '" + kek.name() + "'", wrap, wrapped -> {
            String version = versionOf(kek.name(), wrapped.getKeyId());
            byte[] stored = new AzureWrappedKey(version, algorithm, wrapped.getEncryptedKey()).toBytes();
            return new DataKey(kek, key, new WrappedKey(kek.name(), stored));
        });
        // The SDK has its own copy (sent); ours is wiped once the call is made, whatever its outcome.
        return result.whenComplete((k, e) -> {
            AesKey.wipe(material);
            if (e != null) {
                key.destroy();
            }
        });
    }

    @Override
    public CompletionStage<SecretKey> unwrap(WrappedKey wrapped) {
        String name = wrapped.kekName();
        if (!KEY_NAME.matcher(name).matches()) {
            return CompletableFuture.failedFuture(new UnknownKeyException("'" + name + "' is not a Key Vault key name"));
        }
        AzureWrappedKey parsed;
        try {
            parsed = AzureWrappedKey.parse(wrapped.ciphertext());
        }
        catch (KmsException e) {
            return CompletableFuture.failedFuture(e);
        }
        String what = "KEK '" + name + "' version " + parsed.version();
        return call(what, client(name + "/" + parsed.version()).unwrapKey(parsed.algorithm().sdk(), parsed.wrapped()),
                unwrapped -> AesKey.aes256From(unwrapped.getKey(), "Key Vault's key for " + name));
    }

    /** The version in the key id Key Vault answered with ({@code https://vault/keys/name/version}). */
    private static String versionOf(String name, String keyId) {
        String marker = "/keys/" + name + "/";
        int at = keyId == null ? -1 : keyId.indexOf(marker);
        if (at < 0 || keyId.length() == at + marker.length()) {
            throw new KmsException("KEK '" + name + "': Key Vault's answer names no key version (key id " + keyId + ")");
        }
        return keyId.substring(at + marker.length());
    }

    private CryptographyAsyncClient client(String path) {
        synchronized (clients) {
            return clients.computeIfAbsent(path, clientFactory);
        }
    }

    private <T, R> CompletionStage<R> call(String what, Mono<T> mono, Function<T, R> then) {
        CompletableFuture<R> result = new CompletableFuture<>();
        mono.timeout(requestTimeout).toFuture().whenCompleteAsync((answer, error) -> {
            if (error != null) {
                result.completeExceptionally(AzureErrors.translate(what, error));
                return;
            }
            try {
                result.complete(then.apply(answer));
            }
            catch (RuntimeException e) {
                result.completeExceptionally(AzureErrors.translate(what, e));
            }
        }, executor);
        return result;
    }

    @Override
    public void close() {
        executor.shutdownNow();
    }

    @Override
    public String toString() {
        return "AzureKeyVaultKms[" + description + "]";
    }
}
