package io.sluice.bridge.subscription;

import io.netty.util.concurrent.EventExecutor;
import io.sluice.bridge.selection.SubscriptionFilter;
import io.sluice.bridge.selection.Projection;
import io.sluice.bridge.protocol.EncodedMessage;
import io.sluice.format.mask.ValueMask;

/**
 * One subscription of one connection: an exact endpoint or a prefix ({@code /scores/live/*}). The hub knows only the
 * pattern, whether deltas are wanted and the selection; the connection keeps its delivery state in {@link #state}.
 *
 * @param <S> the type of that state, the outlet's own
 */
public final class Subscription<S> {

    private final Outlet<S> outlet;
    // The outlet's loop, kept here so that picking a message's receivers reads only the subscription lists.
    private final EventExecutor executor;
    private final String pattern;
    private final boolean delta;
    private final SubscriptionFilter filter;
    private final Projection projection;
    private final ValueMask mask;
    // Set by the hub when the subscription joins (under its lock), before any message is dispatched to it.
    private volatile Group group;
    private final S state;

    /**
     * @param filter null for every record; @param projection null for whole payloads; @param state the outlet's own,
     * only touched on the outlet's event loop
     */
    public Subscription(Outlet<S> outlet, String pattern, boolean delta, SubscriptionFilter filter, Projection projection, S state) {
        this(outlet, pattern, delta, filter, projection, null, state);
    }

    /** @param mask the fields masked for this subscription's principal (docs/masking.md), null for none */
    public Subscription(Outlet<S> outlet, String pattern, boolean delta, SubscriptionFilter filter, Projection projection, ValueMask mask,
                        S state) {
        this.outlet = outlet;
        this.state = state;
        this.executor = outlet.executor();
        this.pattern = pattern;
        this.delta = delta;
        this.filter = filter;
        this.projection = projection;
        this.mask = mask;
    }

    /** The fields masked for this subscription's principal; null when none. */
    public ValueMask mask() {
        return mask;
    }

    public SubscriptionFilter filter() {
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

    public Outlet<S> outlet() {
        return outlet;
    }

    /** Hands the message to the outlet on its event loop (the caller is there); takes over one reference. */
    void deliver(EncodedMessage message) {
        outlet.deliver(this, message);
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
    public S state() {
        return state;
    }
}
