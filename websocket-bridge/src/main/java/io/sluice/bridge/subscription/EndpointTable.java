package io.sluice.bridge.subscription;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import io.sluice.bridge.config.EndpointMapping;

/**
 * The configured mapping between endpoints and Kafka topics and keys, both ways. An endpoint resolves through an
 * exact mapping if there is one, else through the mapping with the longest matching prefix; a record is published
 * on an endpoint only if that endpoint resolves back to the record's topic and key, so one endpoint never carries
 * two different streams.
 */
public final class EndpointTable {

    /** A Kafka topic and key an endpoint stands for. Records without a key are key {@code ""}. */
    public record Target(String topic, String key) {
    }

    /**
     * What a prefix subscription can see in one topic: the keys starting with {@code key} ({@code exact} false), or
     * exactly {@code key}.
     */
    public record Cover(String topic, String key, boolean exact) {
    }

    private final List<EndpointMapping> mappings;
    private final Map<String, EndpointMapping> exact = new HashMap<>();
    private final Map<String, List<EndpointMapping>> byTopic = new HashMap<>();

    public EndpointTable(List<EndpointMapping> mappings) {
        this.mappings = List.copyOf(mappings);
        for (EndpointMapping m : mappings) {
            if (!m.prefix()) {
                exact.put(m.endpoint(), m);
            }
            byTopic.computeIfAbsent(m.topic(), t -> new ArrayList<>()).add(m);
        }
    }

    /** True for subscriptions such as {@code /scores/live/*}. */
    public static boolean isPrefix(String pattern) {
        return pattern.endsWith("/*");
    }

    /** {@code /scores/live/*} → {@code /scores/live/}; an exact endpoint stays as it is. */
    public static String prefixOf(String pattern) {
        return isPrefix(pattern) ? pattern.substring(0, pattern.length() - 1) : pattern;
    }

    public static boolean matches(String pattern, String endpoint) {
        return isPrefix(pattern) ? endpoint.startsWith(prefixOf(pattern)) : pattern.equals(endpoint);
    }

    /** The topic and key of an exact endpoint, or null if no mapping covers it. */
    public Target resolve(String endpoint) {
        EndpointMapping m = exact.get(endpoint);
        if (m != null) {
            return new Target(m.topic(), m.key());
        }
        EndpointMapping best = null;
        for (EndpointMapping candidate : mappings) {
            if (candidate.prefix() && endpoint.startsWith(candidate.endpointPrefix())
                    && (best == null || candidate.endpointPrefix().length() > best.endpointPrefix().length())) {
                best = candidate;
            }
        }
        if (best == null) {
            return null;
        }
        return new Target(best.topic(), best.keyPrefix() + endpoint.substring(best.endpointPrefix().length()));
    }

    /** The endpoints a record appears on; usually one, none if no mapping exposes its key. */
    public List<String> endpointsFor(String topic, String key) {
        List<EndpointMapping> candidates = byTopic.get(topic);
        if (candidates == null) {
            return List.of();
        }
        String k = key == null ? "" : key;
        List<String> endpoints = new ArrayList<>(1);
        for (EndpointMapping m : candidates) {
            String endpoint = null;
            if (!m.prefix() && m.key().equals(k)) {
                endpoint = m.endpoint();
            }
            else if (m.prefix() && k.startsWith(m.keyPrefix())) {
                endpoint = m.endpointPrefix() + k.substring(m.keyPrefix().length());
            }
            if (endpoint != null && new Target(topic, k).equals(resolve(endpoint)) && !endpoints.contains(endpoint)) {
                endpoints.add(endpoint);
            }
        }
        return endpoints;
    }

    /** The topics and keys a subscription pattern can receive; empty if none. */
    public List<Cover> cover(String pattern) {
        if (!isPrefix(pattern)) {
            Target target = resolve(pattern);
            return target == null ? List.of() : List.of(new Cover(target.topic(), target.key(), true));
        }
        String prefix = prefixOf(pattern);
        List<Cover> covers = new ArrayList<>();
        for (EndpointMapping m : mappings) {
            if (!m.prefix()) {
                if (m.endpoint().startsWith(prefix)) {
                    covers.add(new Cover(m.topic(), m.key(), true));
                }
            }
            else if (m.endpointPrefix().startsWith(prefix)) {
                covers.add(new Cover(m.topic(), m.keyPrefix(), false));
            }
            else if (prefix.startsWith(m.endpointPrefix())) {
                covers.add(new Cover(m.topic(), m.keyPrefix() + prefix.substring(m.endpointPrefix().length()), false));
            }
        }
        return covers;
    }
}
