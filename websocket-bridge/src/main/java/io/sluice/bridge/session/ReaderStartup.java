package io.sluice.bridge.session;

import java.util.concurrent.CompletableFuture;

/**
 * Whether the node's Kafka reader knows yet where it reads, which subscribes depend on: before it does the node knows
 * no epoch, and would answer every recover position with an {@code unknown_epoch} gap, on which clients drop the
 * position for good. A client reconnecting to a restarted node gets there in that window.
 *
 * @param reading  completes once the reader has its partitions and their start offsets
 * @param waitOver completes with {@code reading}, or {@code recovery.startupWait} after the node started if that is
 *                 sooner; after it, a subscribe is refused with {@code busy} until the reader starts
 */
public record ReaderStartup(CompletableFuture<Void> reading, CompletableFuture<Void> waitOver) {

    boolean waiting() {
        return !reading.isDone() && !waitOver.isDone();
    }
}
