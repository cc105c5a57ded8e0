package io.sluice.bridge.session;

import java.util.Collections;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.Map;

import io.sluice.bridge.protocol.EncodedMessage;

/**
 * The latest message per endpoint, kept for a connection that is not keeping up. Each new message replaces the one
 * before it of the same endpoint, so the memory a slow client costs is bounded by its endpoints, not its backlog.
 */
final class Conflation {

    static final class Kept {
        EncodedMessage message;
        long dropped;
    }

    // Null until a message is kept: most connections never conflate (docs/bridge.md, "Memory per connection").
    private LinkedHashMap<String, Kept> kept;
    private long bytes;

    /** Takes over the reference; returns true if an older message of the endpoint was dropped for it. */
    boolean keep(EncodedMessage message) {
        if (kept == null) {
            kept = new LinkedHashMap<>();
        }
        Kept k = kept.get(message.endpoint());
        if (k == null) {
            k = new Kept();
            k.message = message;
            kept.put(message.endpoint(), k);
            bytes += message.bytes();
            return false;
        }
        bytes += message.bytes() - k.message.bytes();
        k.message.release();
        k.message = message;
        k.dropped++;
        return true;
    }

    boolean isEmpty() {
        return kept == null || kept.isEmpty();
    }

    long bytes() {
        return bytes;
    }

    /** Oldest-kept first; the caller takes over each removed message's reference. */
    Iterator<Map.Entry<String, Kept>> drain() {
        if (kept == null) {
            return Collections.emptyIterator();
        }
        Iterator<Map.Entry<String, Kept>> it = kept.entrySet().iterator();
        return new Iterator<>() {
            @Override
            public boolean hasNext() {
                return it.hasNext();
            }

            @Override
            public Map.Entry<String, Kept> next() {
                Map.Entry<String, Kept> e = it.next();
                it.remove();
                bytes -= e.getValue().message.bytes();
                return e;
            }
        };
    }

    void clear() {
        if (kept != null) {
            kept.values().forEach(k -> k.message.release());
            kept = null;
        }
        bytes = 0;
    }
}
