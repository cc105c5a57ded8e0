package io.sluice.format;

import java.util.Objects;
import java.util.concurrent.CompletableFuture;

/**
 * A record part cannot be read yet without waiting for the schema registry: what it needs is being fetched or parsed on
 * a lookup thread (or the rate of lookups is used up). Not a verdict on the bytes: ask again once {@link #ready()}
 * completes, which it always does, never exceptionally.
 */
public final class SchemaPendingException extends Exception {

    private final transient CompletableFuture<Void> ready;

    public SchemaPendingException(CompletableFuture<Void> ready) {
        super("waiting for the schema registry", null, false, false);
        this.ready = Objects.requireNonNull(ready, "ready");
    }

    /** Completes when asking again is worth it. */
    public CompletableFuture<Void> ready() {
        return ready;
    }
}
