package io.sluice.kms.metrics;

import java.util.Locale;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.function.Supplier;

import javax.crypto.SecretKey;

import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import io.sluice.kms.DataKey;
import io.sluice.kms.KekRef;
import io.sluice.kms.Kms;
import io.sluice.kms.KmsException;
import io.sluice.kms.KmsForbiddenException;
import io.sluice.kms.KmsUnavailableException;
import io.sluice.kms.UnknownKeyException;
import io.sluice.kms.WrappedKey;

/**
 * Times every call to a provider in {@code sluice.kms.calls} (a timer, so Prometheus gets count, sum and max) tagged
 * with the provider, the operation and the outcome: {@code success}, {@code unknown_key}, {@code forbidden},
 * {@code unavailable} or {@code error}. Providers wrap themselves in this in {@code KmsService.create}, so every real
 * KMS round trip, retries included, is counted once.
 */
public final class MeteredKms implements Kms {

    public static final String CALLS = "sluice.kms.calls";

    private final Kms delegate;
    private final MeterRegistry registry;
    private final String provider;

    public MeteredKms(Kms delegate, String provider, MeterRegistry registry) {
        this.delegate = Objects.requireNonNull(delegate, "delegate");
        this.provider = Objects.requireNonNull(provider, "provider");
        this.registry = Objects.requireNonNull(registry, "registry");
    }

    @Override
    public CompletionStage<KekRef> resolveKek(String name) {
        return timed("resolve_kek", () -> delegate.resolveKek(name));
    }

    @Override
    public CompletionStage<DataKey> generateDataKey(KekRef kek) {
        return timed("generate_data_key", () -> delegate.generateDataKey(kek));
    }

    @Override
    public CompletionStage<SecretKey> unwrap(WrappedKey wrapped) {
        return timed("unwrap", () -> delegate.unwrap(wrapped));
    }

    @Override
    public void close() {
        delegate.close();
    }

    private <T> CompletionStage<T> timed(String operation, Supplier<CompletionStage<T>> call) {
        Timer.Sample sample = Timer.start(registry);
        CompletionStage<T> stage;
        try {
            stage = call.get();
        }
        catch (RuntimeException e) {
            stage = CompletableFuture.failedFuture(e);
        }
        return stage.whenComplete((value, failure) -> sample.stop(Timer.builder(CALLS)
                .description("Calls to the KMS, by operation and outcome")
                .tag("provider", provider)
                .tag("operation", operation)
                .tag("outcome", outcome(failure))
                .register(registry)));
    }

    /** The outcome tag for a call that ended with {@code failure} (null for success). */
    public static String outcome(Throwable failure) {
        if (failure == null) {
            return "success";
        }
        KmsException kms = KmsException.find(failure).orElse(null);
        if (kms instanceof UnknownKeyException) {
            return "unknown_key";
        }
        if (kms instanceof KmsForbiddenException) {
            return "forbidden";
        }
        if (kms instanceof KmsUnavailableException) {
            return "unavailable";
        }
        return "error";
    }

    @Override
    public String toString() {
        return "MeteredKms[" + provider.toLowerCase(Locale.ROOT) + "]";
    }
}
