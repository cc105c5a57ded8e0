package io.sluice.bridge.subscription;

import io.netty.util.concurrent.EventExecutor;
import io.sluice.bridge.filter.Filter;
import io.sluice.bridge.filter.Projection;

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
    private final Filter filter;
    private final Projection projection;
    // Set by the hub when the subscription joins (under its lock), before any message is dispatched to it.
    private volatile Group group;
    private Object attachment;

    public Subscription(Outlet outlet, String pattern, boolean delta) {
        this(outlet, pattern, delta, null, null);
    }

    /** @param filter null for every record; @param projection null for whole payloads */
    public Subscription(Outlet outlet, String pattern, boolean delta, Filter filter, Projection projection) {
        this.outlet = outlet;
        this.executor = outlet.executor();
        this.pattern = pattern;
        this.delta = delta;
        this.filter = filter;
        this.projection = projection;
    }

    public Filter filter() {
        return filter;
    }

    public Projection projection() {
        return projection;
    }

    /** The group whose selection this subscription receives; null when it receives every record whole. */
    public Group group() {
        return group;
    }

    void joined(Group group) {
        this.group = group;
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
