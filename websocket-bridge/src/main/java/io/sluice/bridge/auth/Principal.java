package io.sluice.bridge.auth;

import java.util.Map;

import com.fasterxml.jackson.databind.JsonNode;

import java.time.Instant;

/**
 * Who a connection acts for, until when, and what it may do. Permissions are asked about Kafka topics and keys, not
 * endpoints, so they mean the same in the bridge as in the proxy's filters.
 */
public interface Principal {

    /** Stable identity; a refreshed token must name the same subject. */
    String subject();

    /** When the token stops being valid, or null if it never expires. */
    Instant expiresAt();

    /** May read the records of {@code topic} whose key is exactly {@code key}. */
    boolean canSubscribe(String topic, String key);

    /** May read every record of {@code topic} whose key starts with {@code keyPrefix} (empty: the whole topic). */
    boolean canSubscribeAll(String topic, String keyPrefix);

    /** May write records with {@code key} to {@code topic}. */
    boolean canPublish(String topic, String key);

    /**
     * The token's row filters (docs/bridge-filters.md#filters-in-tokens-row-level-permission), by topic pattern in
     * pattern order, as the token carried them; the session compiles them and ANDs those of a topic into every
     * subscription on it. None by default.
     */
    default Map<String, JsonNode> rowFilters() {
        return Map.of();
    }

    /**
     * Whether the token shows {@code path} (a JSON Pointer into the value) of {@code topic} whole although a mask of
     * {@code masking} names it (docs/masking.md). None by default.
     */
    default boolean unmasked(String topic, String path) {
        return false;
    }

    /** The row filters that apply to a topic, by pattern, in pattern order. */
    default Map<String, JsonNode> rowFilters(String topic) {
        return Map.of();
    }
}
