package io.sluice.kms.fakes;

import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Supplier;

import javax.crypto.SecretKey;

import io.sluice.kms.DataKey;
import io.sluice.kms.KekRef;
import io.sluice.kms.Kms;
import io.sluice.kms.KmsException;
import io.sluice.kms.WrappedKey;
import io.sluice.kms.inprocess.InProcessKms;

/**
 * A real in-process KMS that tests can script: count its calls, make them fail (an outage, a revoked policy), or hold
 * them until the test releases them (to see concurrent requests pile up).
 */
public final class ScriptedKms implements Kms {

    public final InProcessKms real;
    public final AtomicInteger resolveCalls = new AtomicInteger();
    public final AtomicInteger generateCalls = new AtomicInteger();
    public final AtomicInteger unwrapCalls = new AtomicInteger();
    private final AtomicReference<Supplier<KmsException>> failure = new AtomicReference<>();
    private volatile boolean holding;
    private final List<Runnable> held = new CopyOnWriteArrayList<>();

    public ScriptedKms(String... keks) {
        this.real = InProcessKms.generate(List.of(keks));
    }

    /** Every call fails with a new exception from this supplier, until {@link #recover()}. */
    public void failWith(Supplier<KmsException> exception) {
        failure.set(exception);
    }

    public void recover() {
        failure.set(null);
    }

    /** Calls wait until {@link #release()}. */
    public void hold() {
        holding = true;
    }

    /** Lets held calls (and later ones) through. */
    public void release() {
        holding = false;
        List<Runnable> toRun = List.copyOf(held);
        held.clear();
        toRun.forEach(Runnable::run);
    }

    public int heldCalls() {
        return held.size();
    }

    @Override
    public CompletionStage<KekRef> resolveKek(String name) {
        resolveCalls.incrementAndGet();
        return call(() -> real.resolveKek(name));
    }

    @Override
    public CompletionStage<DataKey> generateDataKey(KekRef kek) {
        generateCalls.incrementAndGet();
        return call(() -> real.generateDataKey(kek));
    }

    @Override
    public CompletionStage<SecretKey> unwrap(WrappedKey wrapped) {
        unwrapCalls.incrementAndGet();
        return call(() -> real.unwrap(wrapped));
    }

    private <T> CompletionStage<T> call(Supplier<CompletionStage<T>> call) {
        if (!holding) {
            return now(call);
        }
        CompletableFuture<T> later = new CompletableFuture<>();
        held.add(() -> now(call).whenComplete((v, e) -> {
            if (e == null) {
                later.complete(v);
            }
            else {
                later.completeExceptionally(e);
            }
        }));
        return later;
    }

    private <T> CompletionStage<T> now(Supplier<CompletionStage<T>> call) {
        Supplier<KmsException> f = failure.get();
        return f != null ? CompletableFuture.failedFuture(f.get()) : call.get();
    }
}
