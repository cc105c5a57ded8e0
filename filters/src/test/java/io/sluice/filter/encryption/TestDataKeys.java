package io.sluice.filter.encryption;

import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.function.Supplier;

import javax.crypto.KeyGenerator;
import javax.crypto.SecretKey;

/** Data keys for tests and benchmarks that exercise the cipher without a KMS: one key, unwrapped as the test says. */
final class TestDataKeys implements DataKeys {

    private final DataKey key;
    private final Supplier<CompletableFuture<SecretKey>> unwrap;

    private TestDataKeys(DataKey key, Supplier<CompletableFuture<SecretKey>> unwrap) {
        this.key = key;
        this.unwrap = unwrap;
    }

    /** Every wrapped key unwraps at once to {@code key}, as from a warm cache. */
    static TestDataKeys atHand(SecretKey key, byte[] wrapped) {
        return new TestDataKeys(new DataKey(key, wrapped), () -> CompletableFuture.completedFuture(key));
    }

    /** Every unwrap returns a new future from {@code unwrap}, completed when the test decides. */
    static TestDataKeys unwrappedBy(SecretKey key, byte[] wrapped, Supplier<CompletableFuture<SecretKey>> unwrap) {
        return new TestDataKeys(new DataKey(key, wrapped), unwrap);
    }

    static SecretKey newAesKey() {
        try {
            KeyGenerator generator = KeyGenerator.getInstance("AES");
            generator.init(256);
            return generator.generateKey();
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }

    DataKey dataKey() {
        return key;
    }

    @Override
    public CompletionStage<List<DataKey>> forEncryption(String kekName, int records) {
        return CompletableFuture.completedFuture(List.of(key));
    }

    @Override
    public int recordsPerKey() {
        return Integer.MAX_VALUE;
    }

    @Override
    public CompletionStage<SecretKey> forDecryption(String kekName, byte[] wrapped) {
        return unwrap.get();
    }
}
