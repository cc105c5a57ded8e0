package io.sluice.bridge.subscription;

import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.Map;

import com.fasterxml.jackson.databind.JsonNode;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.sluice.bridge.config.DeltaConfig;
import io.sluice.bridge.selection.SubscriptionFilter;
import io.sluice.bridge.selection.Projection;
import io.sluice.bridge.protocol.EncodedMessage;
import io.sluice.bridge.protocol.MessageEncoder;
import io.sluice.bridge.protocol.PerRecord;
import io.sluice.bridge.protocol.RecordMessages;
import io.sluice.format.mask.MaskFailure;
import io.sluice.format.mask.UnmaskableException;
import io.sluice.format.mask.ValueMask;

/**
 * The subscriptions on a node that select the same part of the stream: one filter, one field list and one mask (the
 * fields hidden from their principals, docs/masking.md). The node
 * evaluates the filter and encodes the projection once per record and group, not once per subscriber, so fan-out cost
 * stays flat however many clients share a selection (docs/bridge-filters.md, "Groups").
 *
 * <p>A projected message is a new frame whose payload is the selected fields; for delta subscribers its delta is
 * computed against the group's previous projected message of the same endpoint, so a patch carries only the fields that
 * changed. Those previous messages are kept for at most {@link #MAX_DELTA_BASES} endpoints and
 * {@link #MAX_DELTA_BASE_BYTES} per group (beyond, the least recently updated endpoints' are dropped and their next
 * message goes whole), only while the group has a delta subscriber, and only when a delta could be computed against
 * them at all (a payload over {@code delta.maxValueBytes} never is).
 */
public final class Group {

    /** Endpoints per group whose last projected message is kept as the base of the next delta. */
    static final int MAX_DELTA_BASES = 10_000;
    /**
     * What the kept bases may hold per group, counted as {@link #cost}. A count alone let 10,000 bases of any size
     * stay, each with its parsed JSON. 16 MiB keeps 250 bases at the largest payload a delta is computed for
     * ({@code delta.maxValueBytes}, 64 KiB, counted twice: frame and parsed value) and some thousands of typical
     * 1-2 KiB ones, which is what deltas are for: the same endpoints updated again and again.
     */
    static final long MAX_DELTA_BASE_BYTES = 16L << 20;

    private final SubscriptionFilter filter;
    private final Projection projection;
    private final ValueMask mask;
    private final String key;
    // Counted under the hub's lock; read by the reader thread.
    volatile int members;
    volatile int deltaMembers;
    // The reader thread only.
    private final LinkedHashMap<String, EncodedMessage> lastProjected = new LinkedHashMap<>(16, 0.75f, true);
    // The sum of the kept bases' cost.
    private long deltaBaseBytes;

    /** @param filter null for every record; @param projection null for whole payloads; not both null */
    Group(SubscriptionFilter filter, Projection projection) {
        this(filter, projection, null);
    }

    /** @param mask null for no masked field; not all three null */
    Group(SubscriptionFilter filter, Projection projection, ValueMask mask) {
        this.filter = filter;
        this.projection = projection;
        this.mask = mask;
        this.key = keyOf(filter, projection, mask);
    }

    /** The identity of a selection: the canonical forms of its filter and field list, and which masks it applies. */
    static String keyOf(SubscriptionFilter filter, Projection projection, ValueMask mask) {
        return (filter == null ? "" : filter.canonical()) + "\u0000" + (projection == null ? "" : projection.canonical())
                + "\u0000" + (mask == null ? "" : mask.key());
    }

    String key() {
        return key;
    }

    public SubscriptionFilter filter() {
        return filter;
    }

    public Projection projection() {
        return projection;
    }

    /**
     * This group's version of a live message, a new reference the caller releases, or null when the filter refuses it.
     * Reader thread only.
     */
    EncodedMessage live(EncodedMessage message, MessageView view, ByteBufAllocator allocator, MessageEncoder encoder,
                        DeltaConfig limits) {
        EncodedMessage projected = select(message, view, allocator);
        if (projected == null || projected == message) {
            return projected;
        }
        if (deltaMembers == 0) {
            clearDeltaBases();
            return projected;
        }
        EncodedMessage base = lastProjected.get(message.endpoint());
        if (base != null && base.epoch().equals(projected.epoch())) {
            ByteBuf delta = encoder.delta(base, projected, limits);
            if (delta != null) {
                projected.attachDelta(delta, base.seq());
            }
        }
        // The next message diffs against this one or against none: never against an older one.
        boolean keep = projected.payloadBytes() <= limits.maxValueBytes();
        EncodedMessage replaced = keep ? lastProjected.put(message.endpoint(), projected.retain()) : lastProjected.remove(message.endpoint());
        if (replaced != null) {
            deltaBaseBytes -= cost(replaced);
            replaced.release();
        }
        if (keep) {
            deltaBaseBytes += cost(projected);
        }
        Iterator<Map.Entry<String, EncodedMessage>> eldest = lastProjected.entrySet().iterator();
        while (eldest.hasNext() && (lastProjected.size() > MAX_DELTA_BASES || deltaBaseBytes > MAX_DELTA_BASE_BYTES)) {
            EncodedMessage dropped = eldest.next().getValue();
            eldest.remove();
            deltaBaseBytes -= cost(dropped);
            dropped.release();
        }
        return projected;
    }

    /**
     * What a kept base holds: its frames, and its parsed value counted as its text (a tree takes more; the bound is
     * on what records can make it hold, and that grows with their bytes).
     */
    private static long cost(EncodedMessage base) {
        return (long) base.bytes() + base.payloadBytes();
    }

    /** The kept bases' cost (tests). Reader thread only. */
    long deltaBaseBytes() {
        return deltaBaseBytes;
    }

    /**
     * This group's version of a recovered message (from the cache or the Kafka log), without deltas: takes over the
     * caller's reference and returns one, or null (released) when the filter refuses it. Notices pass. Any thread.
     */
    public EncodedMessage recovered(EncodedMessage message, ByteBufAllocator allocator) {
        try {
            return select(message, new MessageView(message), allocator);
        }
        catch (Throwable e) {
            // As live (Hub): a selection or projection that throws on one message costs that message, not the recovery.
            PerRecord.rethrowIfFatal(e);
            return null;
        }
        finally {
            message.release();
        }
    }

    /**
     * The selection of one message, a new reference: the message itself when it passes whole (notices, which concern
     * every selection; no field list; tombstones), a projection, or null when the filter refuses it.
     */
    private EncodedMessage select(EncodedMessage message, MessageView view, ByteBufAllocator allocator) {
        if (message.notice()) {
            return message.retain();
        }
        if (mask != null) {
            return masked(message, view, allocator);
        }
        if (filter != null && !filter.matches(view)) {
            return null;
        }
        JsonNode value = view.value();
        if (projection == null || value == null || value.isNull()) {
            return message.retain();
        }
        return MessageEncoder.projected(allocator, message, projection.project(value));
    }

    /**
     * The selection with the mask applied first: the filter sees the masked value too, so that a subscriber cannot
     * learn a hidden field by filtering on it. A tombstone passes (it holds no field); a value the mask cannot take is
     * never sent unmasked: a gap notice in its place ({@code onFailure: refuse}) or nothing ({@code drop}).
     */
    private EncodedMessage masked(EncodedMessage message, MessageView view, ByteBufAllocator allocator) {
        JsonNode value = view.value();
        if (value == null || value.isNull()) {
            return filter == null || filter.matches(view) ? message.retain() : null;
        }
        JsonNode masked;
        try {
            masked = mask.apply(value);
        }
        catch (UnmaskableException e) {
            return mask.onFailure() == MaskFailure.DROP ? null : MessageEncoder.gap(allocator, message.endpoint(), message.epoch(),
                    message.seq(), message.seq(), RecordMessages.GAP_UNMASKABLE);
        }
        MaskedView maskedView = new MaskedView(view, masked);
        if (filter != null && !filter.matches(maskedView)) {
            return null;
        }
        return MessageEncoder.projected(allocator, message, projection == null ? masked : projection.project(masked));
    }

    /** Releases the delta bases: the group has no delta subscriber left, or no subscriber at all. Reader thread only. */
    void clearDeltaBases() {
        if (!lastProjected.isEmpty()) {
            lastProjected.values().forEach(EncodedMessage::release);
            lastProjected.clear();
            deltaBaseBytes = 0;
        }
    }
}
