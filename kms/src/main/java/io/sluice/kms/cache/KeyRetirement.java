package io.sluice.kms.cache;

import java.time.Duration;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

import javax.security.auth.DestroyFailedException;
import javax.security.auth.Destroyable;

/**
 * Destroys keys that left a cache once callers that got them just before have had time to use them. Destroying at
 * once would break an encryption that fetched the key a moment before it was replaced.
 */
final class KeyRetirement {

    private final ScheduledExecutorService timer;
    private final long lifetimeNanos;
    private final Set<Destroyable> pending = ConcurrentHashMap.newKeySet();

    KeyRetirement(ScheduledExecutorService timer, Duration lifetime) {
        this.timer = timer;
        this.lifetimeNanos = lifetime.toNanos();
    }

    void retire(Destroyable key) {
        if (key == null) {
            return;
        }
        if (lifetimeNanos == 0) {
            destroy(key);
            return;
        }
        pending.add(key);
        try {
            timer.schedule(() -> {
                if (pending.remove(key)) {
                    destroy(key);
                }
            }, lifetimeNanos, TimeUnit.NANOSECONDS);
        }
        catch (RejectedExecutionException e) {
            pending.remove(key);
            destroy(key);
        }
    }

    /** Destroys every waiting key now. */
    void close() {
        for (Destroyable key : pending) {
            if (pending.remove(key)) {
                destroy(key);
            }
        }
    }

    static void destroy(Destroyable key) {
        try {
            if (!key.isDestroyed()) {
                key.destroy();
            }
        }
        catch (DestroyFailedException e) {
            // Keys such as SecretKeySpec cannot be wiped; the garbage collector will have to do.
        }
    }
}
