package io.sluice.kms.cache;

import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Recent definite refusals by the KMS (unknown key, forbidden, not its ciphertext), by what was asked, each the answer
 * for {@code ttl} without asking the KMS again; at most {@code max} of them, the oldest forgotten first. Whoever
 * chooses what is asked (a wrapped key in a record, a topic name in a produce) would otherwise cost a KMS call per
 * request. Outages are never put here: the caller decides what is a refusal.
 *
 * <p>A plain map under a lock: it is consulted only on a miss, never on the path of a cached key.</p>
 */
final class Refusals<K> {

    private final long ttlNanos;
    private final Map<K, Refusal> byKey;

    Refusals(int max, long ttlNanos) {
        this.ttlNanos = ttlNanos;
        this.byKey = new LinkedHashMap<>(16, 0.75f, false) {
            @Override
            protected boolean removeEldestEntry(Map.Entry<K, Refusal> eldest) {
                return size() > max;
            }
        };
    }

    synchronized void remember(K key, Throwable cause, long now) {
        if (ttlNanos > 0) {
            byKey.remove(key);
            byKey.put(key, new Refusal(cause, now));
        }
    }

    /** The refusal of {@code key} if it is younger than the TTL. */
    synchronized Throwable recent(K key, long now) {
        if (byKey.isEmpty()) {
            return null;
        }
        Refusal refusal = byKey.get(key);
        if (refusal == null) {
            return null;
        }
        if (now - refusal.atNanos >= ttlNanos) {
            byKey.remove(key);
            return null;
        }
        return refusal.cause;
    }

    synchronized void sweep(long now) {
        byKey.values().removeIf(r -> now - r.atNanos >= ttlNanos);
    }

    synchronized int size() {
        return byKey.size();
    }

    synchronized void clear() {
        byKey.clear();
    }

    private record Refusal(Throwable cause, long atNanos) {
    }
}
