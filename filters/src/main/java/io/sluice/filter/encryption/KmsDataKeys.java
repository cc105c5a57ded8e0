package io.sluice.filter.encryption;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;

import javax.crypto.SecretKey;

import io.sluice.kms.KmsForbiddenException;
import io.sluice.kms.KmsUnavailableException;
import io.sluice.kms.UnknownKeyException;
import io.sluice.kms.WrappedKey;
import io.sluice.kms.cache.KeyCache;

/**
 * {@link DataKeys} over the KMS module's {@link KeyCache}, translating its errors into the filter's three cases. Only the
 * KMS's "no such key" is {@link UnknownKekException}; a forbidden key (disabled, pending deletion, access denied) and any
 * other definite error are {@link KekRefusedException}, so that {@code unresolvedKek: PASSTHROUGH} never turns a key the
 * KMS refuses into plaintext.
 */
final class KmsDataKeys implements DataKeys {

    private final KeyCache cache;
    private final int recordsPerKey;

    KmsDataKeys(KeyCache cache, int recordsPerKey) {
        this.cache = cache;
        this.recordsPerKey = recordsPerKey;
    }

    @Override
    public int recordsPerKey() {
        return recordsPerKey;
    }

    @Override
    public CompletionStage<List<DataKey>> forEncryption(String kekName, int records) {
        // A request can hold more records than one data key may encrypt; ask for one key per quota, in turn,
        // so each comes from the cache's rotation rather than all being the same live key.
        if (records < 0) {
            throw new IllegalArgumentException("records: must be counted, not negative: " + records);
        }
        CompletableFuture<List<DataKey>> chain = CompletableFuture.completedFuture(new ArrayList<>());
        int remaining = Math.max(1, records);
        while (remaining > 0) {
            int chunk = Math.min(remaining, recordsPerKey);
            remaining -= chunk;
            chain = chain.thenCompose(keys -> cache.encryptionKey(kekName, chunk).thenApply(k -> {
                keys.add(new DataKey(k.key(), k.wrapped().ciphertext()));
                return keys;
            }));
        }
        return chain.exceptionally(e -> {
            throw translate(kekName, e);
        });
    }

    @Override
    public CompletionStage<SecretKey> forDecryption(String kekName, byte[] wrapped) {
        CompletionStage<SecretKey> key;
        try {
            key = cache.decryptionKey(new WrappedKey(kekName, wrapped));
        } catch (IllegalArgumentException notAKey) {
            // Whatever a record says is its wrapped key is the writer's choice: a failed stage, not a thrown exception.
            key = CompletableFuture.failedFuture(notAKey);
        }
        return key.exceptionally(e -> {
            throw translate(kekName, e);
        });
    }

    private static RuntimeException translate(String kekName, Throwable e) {
        Throwable cause = e instanceof CompletionException && e.getCause() != null ? e.getCause() : e;
        if (cause instanceof KmsUnavailableException) {
            return new KeysUnavailableException("KMS unavailable: " + cause.getMessage(), cause);
        }
        if (cause instanceof UnknownKeyException) {
            return new UnknownKekException("KEK '" + kekName + "': " + cause.getMessage(), cause);
        }
        if (cause instanceof KmsForbiddenException) {
            return new KekRefusedException("KEK '" + kekName + "' refused by the KMS: " + cause.getMessage(), cause);
        }
        return new KekRefusedException("KEK '" + kekName + "' unusable: " + cause.getMessage(), cause);
    }
}
