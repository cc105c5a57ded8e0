package io.sluice.bridge.auth;

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
}
