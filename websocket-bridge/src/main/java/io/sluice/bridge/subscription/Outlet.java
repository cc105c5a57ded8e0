package io.sluice.bridge.subscription;

import io.netty.util.concurrent.EventExecutor;
import io.sluice.bridge.protocol.EncodedMessage;

/**
 * The receiving end of fan-out: one client connection. The hub calls {@link #deliver} and {@link #flush} on the
 * outlet's own event loop, in batches, so a connection's state is only ever touched by one thread.
 *
 * @param <S> the connection's own state per subscription, carried by each {@link Subscription} it makes
 */
public abstract class Outlet<S> {

    // Written and read by the reader thread only, under the hub lock: the record last dispatched to this outlet, so a
    // connection whose subscriptions overlap (/t/k and /t/*) gets each message once.
    long lastDispatched = -1;
    // Event loop only: whether this outlet is already in the current batch's flush list.
    boolean flushPending;

    public abstract EventExecutor executor();

    /** Takes over one reference to {@code message}. Called on {@link #executor()}. */
    public abstract void deliver(Subscription<S> subscription, EncodedMessage message);

    /** The end of a batch: write out what {@link #deliver} queued. Called on {@link #executor()}. */
    public abstract void flush();
}
