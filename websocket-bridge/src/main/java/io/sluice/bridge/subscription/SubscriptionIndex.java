package io.sluice.bridge.subscription;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Predicate;

/**
 * Which subscriptions cover an endpoint. In: subscriptions as they are added and removed, exact ones kept by their
 * endpoint and prefix ones ({@code /t/*}) by their prefix ({@code /t/}). Out: for an endpoint, the lists of
 * subscriptions covering it, found by one walk over the endpoint's prefixes ({@link #walk}), which the hub uses to
 * pick a message's receivers, its possible receivers, and whether a delta subscriber wants it. One walk so that the
 * three cannot disagree about what a prefix covers.
 *
 * <p>Not thread-safe: the hub calls it under its lock only.
 */
final class SubscriptionIndex {

    /** Which of an endpoint's prefixes a walk visits first; the exact subscriptions come before any prefix. */
    enum Order {
        /** {@code /t/a/} before {@code /t/}: the most specific subscription of a connection is found first. */
        MOST_SPECIFIC_FIRST,
        /** {@code /t/} before {@code /t/a/}. */
        LEAST_SPECIFIC_FIRST
    }

    private final Map<String, List<Subscription<?>>> exact = new HashMap<>();
    private final Map<String, List<Subscription<?>>> prefixes = new HashMap<>();

    void add(Subscription<?> subscription) {
        String pattern = subscription.pattern();
        (EndpointTable.isPrefix(pattern) ? prefixes : exact)
                .computeIfAbsent(EndpointTable.prefixOf(pattern), k -> new ArrayList<>()).add(subscription);
    }

    /** Removes the subscription; false when it was not in the index. */
    boolean remove(Subscription<?> subscription) {
        String pattern = subscription.pattern();
        Map<String, List<Subscription<?>>> map = EndpointTable.isPrefix(pattern) ? prefixes : exact;
        String key = EndpointTable.prefixOf(pattern);
        List<Subscription<?>> list = map.get(key);
        if (list == null || !list.remove(subscription)) {
            return false;
        }
        if (list.isEmpty()) {
            map.remove(key);
        }
        return true;
    }

    /** Whether any prefix subscription exists: without one, a connection has at most one subscription per endpoint. */
    boolean hasPrefixes() {
        return !prefixes.isEmpty();
    }

    /** The exact subscriptions of the endpoint, or null when there are none; do not modify. */
    List<Subscription<?>> exactly(String endpoint) {
        return exact.get(endpoint);
    }

    /**
     * Hands the visitor each non-empty list of subscriptions covering the endpoint: the exact ones, then those of each
     * prefix of the endpoint that ends in {@code /} (for {@code /t/a/x}: {@code /t/a/}, {@code /t/}, {@code /}), in the
     * given order. Stops when the visitor returns false; returns false then, true when every list was visited.
     */
    boolean walk(String endpoint, Order order, Predicate<List<Subscription<?>>> visitor) {
        List<Subscription<?>> onEndpoint = exact.get(endpoint);
        if (onEndpoint != null && !visitor.test(onEndpoint)) {
            return false;
        }
        if (prefixes.isEmpty()) {
            return true;
        }
        boolean mostSpecificFirst = order == Order.MOST_SPECIFIC_FIRST;
        for (int i = mostSpecificFirst ? endpoint.lastIndexOf('/') : endpoint.indexOf('/'); i >= 0;
                i = next(endpoint, i, mostSpecificFirst)) {
            List<Subscription<?>> under = prefixes.get(endpoint.substring(0, i + 1));
            if (under != null && !visitor.test(under)) {
                return false;
            }
        }
        return true;
    }

    /** The next {@code /} of the walk after the one at {@code i}, or -1. */
    private static int next(String endpoint, int i, boolean backwards) {
        if (backwards) {
            return i == 0 ? -1 : endpoint.lastIndexOf('/', i - 1);
        }
        return endpoint.indexOf('/', i + 1);
    }
}
