package io.sluice.bridge.subscription;

import java.util.HashMap;
import java.util.Map;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;

import io.sluice.bridge.metrics.BridgeMetrics;

/**
 * The node's groups: subscriptions with the same filter and field list share one, so a live message is filtered and
 * projected once per group, not per subscriber. In: subscriptions joining and leaving; out: the group each selecting
 * subscription is put in ({@link Subscription#group()}), a refusal when a pattern would get more than
 * {@code filters.maxGroupsPerEndpoint} groups, and the groups left empty, whose delta bases the reader thread releases.
 *
 * <p>Not thread-safe: the hub calls {@link #join}, {@link #leave}, {@link #selecting} and {@link #retireAll} under its
 * lock; {@link #releaseRetired} is the reader thread's (the queue it drains is concurrent).
 */
final class Groups {

    private final int maxGroupsPerEndpoint;
    private final BridgeMetrics metrics;
    private final Map<String, Group> groups = new HashMap<>();
    private final Map<String, Map<Group, Integer>> groupsByPattern = new HashMap<>();
    // Groups whose last subscriber left, for the reader thread to release their delta bases.
    private final Queue<Group> retired = new ConcurrentLinkedQueue<>();
    // Subscriptions with a filter or field list: while there are none, records are dispatched as before groups existed.
    private int selecting;

    Groups(int maxGroupsPerEndpoint, BridgeMetrics metrics) {
        this.maxGroupsPerEndpoint = maxGroupsPerEndpoint;
        this.metrics = metrics;
    }

    /** Whether any subscription selects (has a filter or field list). */
    boolean selecting() {
        return selecting > 0;
    }

    /** Puts a selecting subscription in the group of its (filter, fields), refusing a group too many. */
    void join(Subscription<?> subscription) throws TooManyGroupsException {
        if (subscription.filter() == null && subscription.projection() == null && subscription.mask() == null) {
            return;
        }
        String key = Group.keyOf(subscription.filter(), subscription.projection(), subscription.mask());
        Group group = groups.get(key);
        Map<Group, Integer> onPattern = groupsByPattern.get(subscription.pattern());
        boolean newOnPattern = group == null || onPattern == null || !onPattern.containsKey(group);
        if (newOnPattern && onPattern != null && onPattern.size() >= maxGroupsPerEndpoint) {
            throw new TooManyGroupsException(subscription.pattern(), maxGroupsPerEndpoint);
        }
        if (group == null) {
            group = new Group(subscription.filter(), subscription.projection(), subscription.mask());
            groups.put(key, group);
            metrics.groupAdded();
        }
        group.members++;
        if (subscription.delta()) {
            group.deltaMembers++;
        }
        groupsByPattern.computeIfAbsent(subscription.pattern(), p -> new HashMap<>()).merge(group, 1, Integer::sum);
        subscription.joined(group);
        selecting++;
    }

    /** Takes a leaving subscription out of its group; a group left empty is retired. */
    void leave(Subscription<?> subscription) {
        Group group = subscription.group();
        if (group == null) {
            return;
        }
        selecting--;
        group.members--;
        if (subscription.delta()) {
            group.deltaMembers--;
        }
        Map<Group, Integer> onPattern = groupsByPattern.get(subscription.pattern());
        if (onPattern != null && onPattern.merge(group, -1, Integer::sum) <= 0) {
            onPattern.remove(group);
            if (onPattern.isEmpty()) {
                groupsByPattern.remove(subscription.pattern());
            }
        }
        if (group.members == 0) {
            groups.remove(group.key());
            metrics.groupRemoved();
            retired.add(group);
        }
    }

    /** The node shuts down: every group's bases are to be released. */
    void retireAll() {
        groups.values().forEach(retired::add);
    }

    /** Releases the delta bases of the retired groups. Reader thread (or the shutdown, under the lock). */
    void releaseRetired() {
        for (Group g = retired.poll(); g != null; g = retired.poll()) {
            g.clearDeltaBases();
        }
    }
}
