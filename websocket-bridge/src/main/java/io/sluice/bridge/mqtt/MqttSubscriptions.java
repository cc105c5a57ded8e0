package io.sluice.bridge.mqtt;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;

import io.sluice.bridge.subscription.EndpointTable;

/**
 * One MQTT connection's topic filters and the bridge subscriptions they ride on: in, the filters granted by SUBSCRIBE
 * (with their QoS) and removed by UNSUBSCRIBE; out, for each delivered topic the QoS it goes with (the highest of the
 * filters matching it, MQTT's rule for overlapping subscriptions, one copy), and which bridge pattern still has filters.
 * Several filters may share one pattern ({@code a/+/x} and {@code a/#} both ride {@code /a/*}). Exact filters are
 * looked up, wildcard ones matched; their number is bounded by {@code server.maxSubscriptionsPerConnection}. Event
 * loop only.
 */
final class MqttSubscriptions {

    private final Map<String, Integer> exact = new HashMap<>();
    private final Map<String, Integer> wildcards = new HashMap<>();
    private final Map<String, String> patternOf = new HashMap<>();
    private final Map<String, Set<String>> filtersOf = new HashMap<>();

    int size() {
        return exact.size() + wildcards.size();
    }

    boolean has(String filter) {
        return patternOf.containsKey(filter);
    }

    boolean hasPattern(String pattern) {
        return filtersOf.containsKey(pattern);
    }

    /** Adds or replaces the filter's QoS. */
    void put(String filter, String pattern, int qos) {
        (isWildcard(filter) ? wildcards : exact).put(filter, qos);
        patternOf.put(filter, pattern);
        filtersOf.computeIfAbsent(pattern, p -> new HashSet<>()).add(filter);
    }

    /**
     * Removes the filter; returns its pattern when no other filter rides on it any more (the bridge subscription
     * should end), else null (also when the filter was not there).
     */
    String remove(String filter) {
        String pattern = patternOf.remove(filter);
        if (pattern == null) {
            return null;
        }
        (isWildcard(filter) ? wildcards : exact).remove(filter);
        Set<String> filters = filtersOf.get(pattern);
        filters.remove(filter);
        if (filters.isEmpty()) {
            filtersOf.remove(pattern);
            return pattern;
        }
        return null;
    }

    /** The QoS a message on {@code topic} goes with: the highest of the matching filters', or -1 when none matches. */
    int qosFor(String topic) {
        int qos = exact.getOrDefault(topic, -1);
        if (qos >= 1) {
            return qos;
        }
        for (Map.Entry<String, Integer> e : wildcards.entrySet()) {
            if (e.getValue() > qos && MqttTopics.matches(e.getKey(), topic)) {
                qos = e.getValue();
                if (qos >= 1) {
                    break;
                }
            }
        }
        return qos;
    }

    /** The bridge patterns of this connection that cover the endpoint (a conflated message went out for all of them). */
    List<String> patternsCovering(String endpoint) {
        List<String> out = new ArrayList<>(1);
        for (String pattern : filtersOf.keySet()) {
            if (EndpointTable.matches(pattern, endpoint)) {
                out.add(pattern);
            }
        }
        return out;
    }

    /** The filters riding on the pattern. */
    List<String> filtersOn(String pattern) {
        Set<String> filters = filtersOf.get(pattern);
        return filters == null ? List.of() : List.copyOf(filters);
    }

    /** Every filter with its QoS, for a persistent session's state. */
    Map<String, Integer> filters() {
        Map<String, Integer> all = new LinkedHashMap<>(exact);
        all.putAll(wildcards);
        return all;
    }

    private static boolean isWildcard(String filter) {
        return filter.indexOf('+') >= 0 || filter.indexOf('#') >= 0;
    }
}
