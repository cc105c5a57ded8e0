package io.sluice.bridge.mqtt;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Every persistent session of the cluster as this node has read the sessions topic so far: per {@link SessionKey}, the
 * offset of its latest record and what decides its life (generation, holder, expiry), not its state, which is read
 * from Kafka when a client resumes. In: the records the store's reader applies, in offset order, and the places a
 * CONNECT reserves before its first write is read back; out: lookups, the per-subject count
 * ({@code mqtt.sessions.maxPerSubject}) and the expired sessions to tombstone. About a hundred bytes per session, at
 * most {@code mqtt.sessions.maxSessions} of them (a new session beyond it is refused). Thread-safe.
 */
final class SessionIndex {

    /** A session's latest record. */
    record Entry(long offset, long generation, String owner, boolean connected, long expiresAt) {
    }

    private final Map<SessionKey, Entry> entries = new HashMap<>();
    private final Map<String, Integer> perSubject = new HashMap<>();
    // New sessions a CONNECT on this node is creating, not read back yet: counted like sessions. Per key as well as per
    // subject, so that reading a session's first record back ends its reservation in the same step that counts the
    // session: the connection's own release comes later, on its event loop, and until then a CONNECT of the subject on
    // another event loop saw the session counted twice (MqttHostileTest's flood was refused one session early).
    private final Map<SessionKey, Integer> reservedKeys = new HashMap<>();
    private final Map<String, Integer> reserved = new HashMap<>();
    private int reservedTotal;

    synchronized Entry get(SessionKey key) {
        return entries.get(key);
    }

    /** A record read from the topic: the session's latest, or its end (a tombstone, {@code entry} null). */
    synchronized void apply(SessionKey key, Entry entry) {
        Entry before = entry == null ? entries.remove(key) : entries.put(key, entry);
        if (before == null && entry != null) {
            perSubject.merge(key.subject(), 1, Integer::sum);
            Integer pending = reservedKeys.remove(key);
            if (pending != null) {
                unreserve(key.subject(), pending);
            }
        }
        else if (before != null && entry == null) {
            perSubject.computeIfPresent(key.subject(), (s, n) -> n == 1 ? null : n - 1);
        }
    }

    /**
     * Takes a place for a new session of the key's subject, or returns why not: the subject holds
     * {@code maxPerSubject} sessions, or the cluster {@code maxSessions}. It ends when the session's first record is
     * read back ({@link #apply}), or by {@link #release} if that record was never written.
     */
    synchronized String reserve(SessionKey key, int maxPerSubject, int maxSessions) {
        if (perSubject.getOrDefault(key.subject(), 0) + reserved.getOrDefault(key.subject(), 0) >= maxPerSubject) {
            return "the subject holds mqtt.sessions.maxPerSubject (" + maxPerSubject + ") persistent sessions";
        }
        if (entries.size() + reservedTotal >= maxSessions) {
            return "the cluster holds mqtt.sessions.maxSessions (" + maxSessions + ") persistent sessions";
        }
        reservedKeys.merge(key, 1, Integer::sum);
        reserved.merge(key.subject(), 1, Integer::sum);
        reservedTotal++;
        return null;
    }

    /** Gives back a place {@link #reserve} took; nothing if the session's first record was read back meanwhile. */
    synchronized void release(SessionKey key) {
        Integer n = reservedKeys.get(key);
        if (n == null) {
            return;
        }
        if (n == 1) {
            reservedKeys.remove(key);
        }
        else {
            reservedKeys.put(key, n - 1);
        }
        unreserve(key.subject(), 1);
    }

    private void unreserve(String subject, int places) {
        reserved.computeIfPresent(subject, (s, n) -> n <= places ? null : n - places);
        reservedTotal -= places;
    }

    synchronized int size() {
        return entries.size();
    }

    /** The sessions whose expiry has passed at {@code now}, at most {@code max} of them. */
    synchronized List<SessionKey> expired(long now, int max) {
        List<SessionKey> out = new ArrayList<>();
        for (Map.Entry<SessionKey, Entry> e : entries.entrySet()) {
            if (e.getValue().expiresAt() < now) {
                out.add(e.getKey());
                if (out.size() >= max) {
                    break;
                }
            }
        }
        return out;
    }
}
