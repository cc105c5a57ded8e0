package io.sluice.bridge.selection;

import java.util.List;

import com.fasterxml.jackson.databind.JsonNode;

/**
 * A subscription filter: a bounded boolean expression over a record's decoded value, key and headers (the language is
 * in docs/bridge-filters.md). Immutable and thread-safe. Two filters are equal when their {@link #canonical()} texts
 * are, which is what groups subscriptions: the node evaluates each distinct filter once per record.
 */
public final class SubscriptionFilter {

    private static final SubscriptionFilter MATCH_ALL = new SubscriptionFilter(new Expr.Junction(true, List.of()));

    private final Expr root;
    private final String canonical;

    private SubscriptionFilter(Expr root) {
        this.root = root;
        StringBuilder out = new StringBuilder();
        root.appendCanonical(out);
        this.canonical = out.toString();
    }

    /** Parses a filter sent as {@code "filter"}; errors name their spot from {@code filter}. */
    public static SubscriptionFilter parse(JsonNode node, FilterLimits limits) throws FilterException {
        return parse(node, limits, "filter");
    }

    /**
     * Parses a filter whose errors name their spot from {@code path} (for a token claim, e.g.
     * {@code sluice.filters["orders.*"]}).
     */
    public static SubscriptionFilter parse(JsonNode node, FilterLimits limits, String path) throws FilterException {
        return new SubscriptionFilter(FilterParser.parse(node, limits, path));
    }

    /** The filter that every record matches ({@code {"all": []}}): what a subscription without a filter has. */
    public static SubscriptionFilter matchAll() {
        return MATCH_ALL;
    }

    public boolean isMatchAll() {
        return equals(MATCH_ALL);
    }

    public boolean matches(RecordView view) {
        return root.matches(view);
    }

    /**
     * Both filters: {@code {"all": [this, other]}}, or the other one alone when either matches everything. Order is
     * kept (it is part of the canonical form), so callers combining a token's filter with a client's should always
     * put the same one first: {@code mandatory.and(requested)}. Limits are not checked again: each part was checked
     * when parsed.
     */
    public SubscriptionFilter and(SubscriptionFilter other) {
        if (isMatchAll()) {
            return other;
        }
        if (other.isMatchAll()) {
            return this;
        }
        return new SubscriptionFilter(new Expr.Junction(true, List.of(root, other.root)));
    }

    /**
     * The filter as compact JSON with one spelling per meaning where that is cheap to get: no whitespace, numbers
     * normalized (1, 1.0 and 1E0 are {@code 1}), object literals' members sorted, JSON's standard string escapes.
     * Operands of {@code all}/{@code any} and {@code in} lists keep their order.
     */
    public String canonical() {
        return canonical;
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof SubscriptionFilter f && f.canonical.equals(canonical);
    }

    @Override
    public int hashCode() {
        return canonical.hashCode();
    }

    @Override
    public String toString() {
        return canonical;
    }
}
