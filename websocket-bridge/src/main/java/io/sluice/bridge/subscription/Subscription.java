package io.sluice.bridge.subscription;

import io.netty.util.concurrent.EventExecutor;

/**
 * One subscription of one connection: an exact endpoint or a prefix ({@code /scores/live/*}). The hub knows only the
 * pattern and whether deltas are wanted; the connection keeps its delivery state in {@link #attachment}.
 */
public final class Subscription {

    private final Outlet outlet;
    // The outlet's loop, kept here so that picking a message's receivers reads only the subscription lists.
    private final EventExecutor executor;
    private final String pattern;
    private final boolean delta;
    private Object attachment;

    public Subscription(Outlet outlet, String pattern, boolean delta) {
        this.outlet = outlet;
        this.executor = outlet.executor();
        this.pattern = pattern;
        this.delta = delta;
    }

    public Outlet outlet() {
        return outlet;
    }

    EventExecutor executor() {
        return executor;
    }

    public String pattern() {
        return pattern;
    }

    public boolean delta() {
        return delta;
    }

    /** The outlet's own state for this subscription; only touched on the outlet's event loop. */
    public Object attachment() {
        return attachment;
    }

    public void attach(Object state) {
        this.attachment = state;
    }
}
