package io.sluice.kms.gcp;

import java.nio.charset.StandardCharsets;
import java.security.SecureRandom;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ExecutorService;
import java.util.function.Function;
import java.util.function.Supplier;
import java.util.regex.Pattern;

import javax.crypto.SecretKey;

import com.google.api.core.ApiFuture;
import com.google.api.core.ApiFutureCallback;
import com.google.api.core.ApiFutures;
import com.google.cloud.kms.v1.CryptoKey;
import com.google.cloud.kms.v1.CryptoKeyVersion;
import com.google.cloud.kms.v1.DecryptRequest;
import com.google.cloud.kms.v1.EncryptRequest;
import com.google.cloud.kms.v1.GetCryptoKeyRequest;
import com.google.cloud.kms.v1.KeyManagementServiceClient;
import com.google.protobuf.ByteString;

import io.sluice.kms.AesKey;
import io.sluice.kms.DataKey;
import io.sluice.kms.KekRef;
import io.sluice.kms.Kms;
import io.sluice.kms.KmsException;
import io.sluice.kms.KmsForbiddenException;
import io.sluice.kms.UnknownKeyException;
import io.sluice.kms.WrappedKey;

/**
 * The KMS SPI over Google Cloud KMS. In: KEK names (CryptoKey resource names, or ids in the configured key ring). Out:
 * data keys generated here (SecureRandom, AES-256) and encrypted by the CryptoKey's primary version; decrypting needs
 * no version (Cloud KMS's ciphertext names it), so rotation (a new primary version) leaves old data readable while its
 * versions stay enabled. The additional authenticated data {@code sluice-kek:<KEK name>} binds each wrapped key to the
 * KEK name it was made for. The client is made on the first call, on this provider's threads (application default
 * credentials may ask the metadata server), and every call completes there too, never on the caller's thread.
 */
final class GcpKms implements Kms {

    private static final String ID = "[a-zA-Z0-9_-]{1,63}";
    private static final Pattern CRYPTO_KEY = Pattern.compile("projects/" + ID + "/locations/" + ID + "/keyRings/" + ID + "/cryptoKeys/" + ID);
    private static final Pattern VERSION = Pattern.compile(".*/cryptoKeyVersions/(\\d{1,9})");

    private final Supplier<KeyManagementServiceClient> clientFactory;
    private final String keyRing;
    private final ExecutorService executor;
    private final String description;
    private final SecureRandom random = new SecureRandom();
    private KeyManagementServiceClient client;

    GcpKms(Supplier<KeyManagementServiceClient> clientFactory, String keyRing, ExecutorService executor, String description) {
        this.clientFactory = clientFactory;
        this.keyRing = keyRing;
        this.executor = executor;
        this.description = description;
    }

    @Override
    public CompletionStage<KekRef> resolveKek(String name) {
        String resource = resource(name);
        if (resource == null) {
            return notAName(name);
        }
        return call("KEK '" + name + "'", c -> c.getCryptoKeyCallable().futureCall(GetCryptoKeyRequest.newBuilder().setName(resource).build()), key -> {
            if (key.getPurpose() != CryptoKey.CryptoKeyPurpose.ENCRYPT_DECRYPT) {
                throw new KmsException("KEK '" + name + "': the CryptoKey's purpose is " + key.getPurpose() + ", not ENCRYPT_DECRYPT");
            }
            if (!key.hasPrimary() || key.getPrimary().getState() != CryptoKeyVersion.CryptoKeyVersionState.ENABLED) {
                throw new KmsForbiddenException("KEK '" + name + "': the CryptoKey's primary version is "
                        + (key.hasPrimary() ? key.getPrimary().getState() : "missing"));
            }
            return new KekRef(name, version(key.getPrimary().getName()));
        });
    }

    @Override
    public CompletionStage<DataKey> generateDataKey(KekRef kek) {
        String resource = resource(kek.name());
        if (resource == null) {
            return notAName(kek.name());
        }
        byte[] material = new byte[32];
        random.nextBytes(material);
        AesKey key = AesKey.copyOf(material);
        EncryptRequest request = EncryptRequest.newBuilder().setName(resource).setPlaintext(ByteString.copyFrom(material))
                .setAdditionalAuthenticatedData(aad(kek.name())).build();
        AesKey.wipe(material);
        return call("KEK '" + kek.name() + "'", c -> c.encryptCallable().futureCall(request),
                answer -> new DataKey(new KekRef(kek.name(), version(answer.getName())), key, new WrappedKey(kek.name(), answer.getCiphertext().toByteArray())))
                .whenComplete((k, e) -> {
                    if (e != null) {
                        key.destroy();
                    }
                });
    }

    @Override
    public CompletionStage<SecretKey> unwrap(WrappedKey wrapped) {
        String resource = resource(wrapped.kekName());
        if (resource == null) {
            return notAName(wrapped.kekName());
        }
        DecryptRequest request = DecryptRequest.newBuilder().setName(resource).setCiphertext(ByteString.copyFrom(wrapped.ciphertext()))
                .setAdditionalAuthenticatedData(aad(wrapped.kekName())).build();
        return call("KEK '" + wrapped.kekName() + "'", c -> c.decryptCallable().futureCall(request),
                answer -> AesKey.aes256From(answer.getPlaintext().toByteArray(), "Cloud KMS's key for " + wrapped.kekName()));
    }

    /** The CryptoKey resource a KEK name stands for, or null if it is not one (names come from records too). */
    private String resource(String name) {
        String full = name.startsWith("projects/") || keyRing == null ? name : keyRing + "/cryptoKeys/" + name;
        return CRYPTO_KEY.matcher(full).matches() ? full : null;
    }

    private <T> CompletionStage<T> notAName(String name) {
        return CompletableFuture.failedFuture(new UnknownKeyException("'" + name + "' is not a Cloud KMS CryptoKey name"
                + (keyRing == null ? " (projects/P/locations/L/keyRings/R/cryptoKeys/K)" : " (a CryptoKey id in " + keyRing + ")")));
    }

    private static ByteString aad(String kekName) {
        return ByteString.copyFrom("sluice-kek:" + kekName, StandardCharsets.UTF_8);
    }

    private static int version(String versionName) {
        var m = VERSION.matcher(versionName);
        return m.matches() ? Integer.parseInt(m.group(1)) : 1;
    }

    private synchronized KeyManagementServiceClient client() {
        if (client == null) {
            client = clientFactory.get();
        }
        return client;
    }

    private <A, R> CompletionStage<R> call(String what, Function<KeyManagementServiceClient, ApiFuture<A>> request, Function<A, R> then) {
        CompletableFuture<R> result = new CompletableFuture<>();
        try {
            executor.execute(() -> {
                ApiFuture<A> future;
                try {
                    future = request.apply(client());
                }
                catch (RuntimeException e) {
                    result.completeExceptionally(GcpErrors.translate(what, e));
                    return;
                }
                ApiFutures.addCallback(future, new ApiFutureCallback<>() {
                    @Override
                    public void onFailure(Throwable t) {
                        result.completeExceptionally(GcpErrors.translate(what, t));
                    }

                    @Override
                    public void onSuccess(A answer) {
                        try {
                            result.complete(then.apply(answer));
                        }
                        catch (RuntimeException e) {
                            result.completeExceptionally(GcpErrors.translate(what, e));
                        }
                    }
                }, executor);
            });
        }
        catch (java.util.concurrent.RejectedExecutionException closed) {
            result.completeExceptionally(new KmsException(what + ": the Cloud KMS provider is closed"));
        }
        return result;
    }

    @Override
    public synchronized void close() {
        if (client != null) {
            client.close();
        }
        executor.shutdownNow();
    }

    @Override
    public String toString() {
        return "GcpKms[" + description + "]";
    }
}
