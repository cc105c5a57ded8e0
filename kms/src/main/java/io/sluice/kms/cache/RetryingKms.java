package io.sluice.kms.cache;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.DoubleSupplier;
import java.util.function.LongSupplier;
import java.util.function.Supplier;

import javax.crypto.SecretKey;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.sluice.kms.DataKey;
import io.sluice.kms.KekRef;
import io.sluice.kms.Kms;
import io.sluice.kms.KmsException;
import io.sluice.kms.KmsUnavailableException;
import io.sluice.kms.WrappedKey;

/**
 * Retries calls that fail with {@link KmsUnavailableException}, with {@link Backoff} between attempts, within the
 * {@link RetryPolicy}'s attempt and time bounds. Waits on a timer, never by sleeping. The final failure is the last
 * attempt's, unchanged, so callers still see the typed exception.
 */
final class RetryingKms implements Kms {

    static final String RETRIES = "sluice.kms.retries";

    private final Kms delegate;
    private final RetryPolicy policy;
    private final Backoff backoff;
    private final ScheduledExecutorService timer;
    private final LongSupplier nanoClock;
    private final MeterRegistry registry;

    RetryingKms(Kms delegate, RetryPolicy policy, ScheduledExecutorService timer, MeterRegistry registry,
                LongSupplier nanoClock, DoubleSupplier random) {
        this.delegate = delegate;
        this.policy = policy;
        this.backoff = new Backoff(policy, random);
        this.timer = timer;
        this.registry = registry;
        this.nanoClock = nanoClock;
    }

    @Override
    public CompletionStage<KekRef> resolveKek(String name) {
        return withRetries("resolve_kek", () -> delegate.resolveKek(name));
    }

    @Override
    public CompletionStage<DataKey> generateDataKey(KekRef kek) {
        return withRetries("generate_data_key", () -> delegate.generateDataKey(kek));
    }

    @Override
    public CompletionStage<SecretKey> unwrap(WrappedKey wrapped) {
        return withRetries("unwrap", () -> delegate.unwrap(wrapped));
    }

    @Override
    public void close() {
        delegate.close();
    }

    private <T> CompletionStage<T> withRetries(String operation, Supplier<CompletionStage<T>> call) {
        CompletableFuture<T> result = new CompletableFuture<>();
        attempt(operation, call, result, 1, nanoClock.getAsLong());
        return result;
    }

    private <T> void attempt(String operation, Supplier<CompletionStage<T>> call, CompletableFuture<T> result, int attempt, long startNanos) {
        CompletionStage<T> stage;
        try {
            stage = call.get();
        }
        catch (RuntimeException e) {
            stage = CompletableFuture.failedFuture(e);
        }
        stage.whenComplete((value, failure) -> {
            if (failure == null) {
                result.complete(value);
                return;
            }
            Throwable cause = KmsException.find(failure).<Throwable>map(e -> e).orElse(failure);
            if (!(cause instanceof KmsUnavailableException) || attempt >= policy.maxAttempts()) {
                result.completeExceptionally(cause);
                return;
            }
            long delay = backoff.delayNanos(attempt);
            if (nanoClock.getAsLong() - startNanos + delay > policy.maxElapsed().toNanos()) {
                result.completeExceptionally(cause);
                return;
            }
            Counter.builder(RETRIES).description("KMS calls retried after the KMS was unavailable")
                    .tag("operation", operation).register(registry).increment();
            try {
                timer.schedule(() -> attempt(operation, call, result, attempt + 1, startNanos), delay, TimeUnit.NANOSECONDS);
            }
            catch (RejectedExecutionException e) {
                result.completeExceptionally(cause);
            }
        });
    }

    @Override
    public String toString() {
        return "RetryingKms[" + delegate + "]";
    }
}
