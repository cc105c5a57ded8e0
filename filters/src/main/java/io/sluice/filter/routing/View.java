package io.sluice.filter.routing;

import java.nio.ByteBuffer;

import io.sluice.auth.NamePattern;

/**
 * A name a client uses for a topic: a virtual topic ({@code scores.live.football}: the records of real topic
 * {@code scores} whose keys match {@code live/football}) or a real topic used by its own name (no key filter).
 */
record View(String name, String topic, NamePattern keys) {

    static View direct(String topic) {
        return new View(topic, topic, null);
    }

    boolean isVirtual() {
        return keys != null;
    }

    /** Whether every record of the real topic belongs to the view: no need to look at keys. */
    boolean admitsAll() {
        return keys == null || keys.matchesEverything();
    }

    /** Whether a record with this key belongs to the view; null is the empty key, as in JWT key patterns. */
    boolean admits(ByteBuffer key) {
        return keys == null || keys.matches(key);
    }
}
