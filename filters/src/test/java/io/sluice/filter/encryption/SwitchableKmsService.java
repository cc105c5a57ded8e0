package io.sluice.filter.encryption;

import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;

import javax.crypto.SecretKey;

import io.micrometer.core.instrument.MeterRegistry;
import io.sluice.kms.DataKey;
import io.sluice.kms.KekRef;
import io.sluice.kms.Kms;
import io.sluice.kms.KmsService;
import io.sluice.kms.KmsUnavailableException;
import io.sluice.kms.WrappedKey;
import io.sluice.kms.inprocess.InProcessKms;
import io.sluice.kms.inprocess.InProcessKmsConfig;

/**
 * The in-process KMS with a switch that takes it down, shared by every proxy a test starts, so a test can
 * create and rotate KEKs and simulate an outage.
 */
public final class SwitchableKmsService implements KmsService<InProcessKmsConfig> {

    private static final InProcessKms KMS = InProcessKms.generate(List.of());
    private static volatile boolean down;
    private static final java.util.Map<String, java.util.concurrent.atomic.AtomicInteger> UNWRAPS = new java.util.concurrent.ConcurrentHashMap<>();

    private static final java.util.Map<String, java.util.concurrent.atomic.AtomicInteger> RESOLVES = new java.util.concurrent.ConcurrentHashMap<>();

    /** How often any proxy asked this KMS for the KEK of that name (the first call of every new data key). */
    public static int resolveCalls(String kekName) {
        var calls = RESOLVES.get(kekName);
        return calls == null ? 0 : calls.get();
    }

    /** How often any proxy asked this KMS to unwrap that wrapped key. */
    public static int unwrapCalls(byte[] wrappedCiphertext) {
        var calls = UNWRAPS.get(new String(wrappedCiphertext, java.nio.charset.StandardCharsets.ISO_8859_1));
        return calls == null ? 0 : calls.get();
    }

    /** A fresh data key under an existing KEK, as a proxy would get it, for tests that write envelopes themselves. */
    public static DataKey dataKey(String kekName) {
        return KMS.resolveKek(kekName).thenCompose(KMS::generateDataKey).toCompletableFuture().join();
    }

    public static void createKey(String name) {
        KMS.createKey(name);
    }

    public static int rotate(String name) {
        return KMS.rotate(name);
    }

    public static void down() {
        down = true;
    }

    public static void up() {
        down = false;
    }

    @Override
    public Class<InProcessKmsConfig> configType() {
        return InProcessKmsConfig.class;
    }

    @Override
    public Kms create(InProcessKmsConfig config, MeterRegistry registry) {
        config.keys().forEach(name -> {
            if (KMS.resolveKek(name).toCompletableFuture().isCompletedExceptionally()) {
                KMS.createKey(name);
            }
        });
        return new Kms() {
            @Override
            public CompletionStage<KekRef> resolveKek(String name) {
                RESOLVES.computeIfAbsent(name, k -> new java.util.concurrent.atomic.AtomicInteger()).incrementAndGet();
                return down ? unavailable() : KMS.resolveKek(name);
            }

            @Override
            public CompletionStage<DataKey> generateDataKey(KekRef kek) {
                return down ? unavailable() : KMS.generateDataKey(kek);
            }

            @Override
            public CompletionStage<SecretKey> unwrap(WrappedKey wrapped) {
                UNWRAPS.computeIfAbsent(new String(wrapped.ciphertext(), java.nio.charset.StandardCharsets.ISO_8859_1),
                        k -> new java.util.concurrent.atomic.AtomicInteger()).incrementAndGet();
                return down ? unavailable() : KMS.unwrap(wrapped);
            }
        };
    }

    private static <T> CompletionStage<T> unavailable() {
        return CompletableFuture.failedFuture(new KmsUnavailableException("test KMS is down"));
    }
}
