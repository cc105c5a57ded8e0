package io.sluice.auth;

import java.nio.ByteBuffer;
import java.util.List;

/**
 * What one operation (read or write) may touch within one topic: nothing, every record, or the records whose
 * keys match one of a set of patterns.
 */
public final class KeyAccess {

    public static final KeyAccess NONE = new KeyAccess(List.of(), false);
    public static final KeyAccess ALL = new KeyAccess(List.of(), true);

    private final List<NamePattern> keys;
    private final boolean all;

    private KeyAccess(List<NamePattern> keys, boolean all) {
        this.keys = keys;
        this.all = all;
    }

    static KeyAccess ofKeys(List<NamePattern> keys) {
        return keys.isEmpty() ? NONE : new KeyAccess(List.copyOf(keys), false);
    }

    /** Whether any record of the topic may be touched at all. */
    public boolean any() {
        return all || !keys.isEmpty();
    }

    /** Whether every record may be touched, so records need not be looked at one by one. */
    public boolean all() {
        return all;
    }

    /** Whether a record with this key may be touched; the key's position is left as it was; null is the empty key. */
    public boolean allows(ByteBuffer key) {
        if (all) {
            return true;
        }
        for (NamePattern p : keys) {
            if (p.matches(key)) {
                return true;
            }
        }
        return false;
    }

    /**
     * Whether every record whose key starts with {@code prefix} may be touched: one pattern must cover them all (see
     * {@link NamePattern#coversPrefix}), so a subscription to a key prefix never needs per-record filtering.
     */
    public boolean coversPrefix(String prefix) {
        if (all) {
            return true;
        }
        for (NamePattern p : keys) {
            if (p.coversPrefix(prefix)) {
                return true;
            }
        }
        return false;
    }

    /** The key patterns when access is limited to some keys; empty for {@link #NONE} and {@link #ALL}. */
    public List<NamePattern> keyPatterns() {
        return keys;
    }

    @Override
    public String toString() {
        return all ? "all" : keys.isEmpty() ? "none" : "keys" + keys;
    }
}
