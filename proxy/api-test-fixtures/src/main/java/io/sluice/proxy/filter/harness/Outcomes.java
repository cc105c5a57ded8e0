package io.sluice.proxy.filter.harness;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;

/** Unwraps a failed stage's cause the way the proxy reports it: without CompletionException around it. */
final class Outcomes {

    private Outcomes() {
    }

    static Throwable causeOf(CompletableFuture<?> failed) {
        try {
            failed.get();
            throw new IllegalStateException("not failed");
        } catch (ExecutionException e) {
            Throwable cause = e.getCause();
            return cause instanceof CompletionException && cause.getCause() != null ? cause.getCause() : cause;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return e;
        } catch (java.util.concurrent.CancellationException e) {
            return e;
        }
    }
}
