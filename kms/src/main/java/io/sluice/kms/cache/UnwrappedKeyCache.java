package io.sluice.kms.cache;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.LongSupplier;

import javax.crypto.SecretKey;

import io.sluice.kms.Kms;
import io.sluice.kms.KmsException;
import io.sluice.kms.KmsForbiddenException;
import io.sluice.kms.KmsUnavailableException;
import io.sluice.kms.UnknownKeyException;
import io.sluice.kms.WrappedKey;

/**
 * Unwrapped data keys by wrapped form, at most {@link UnwrappedKeyLimits#maxEntries()} of them (oldest dropped first).
 *
 * <p>A key older than {@link UnwrappedKeyLimits#expireAfter()} is unwrapped again in the background on its next use
 * while the cached one keeps serving: decryption never waits for the KMS for a key it already has, and survives a KMS
 * outage. The KMS's answer still counts: an unknown or forbidden key is dropped. Concurrent requests for one wrapped
 * key share one KMS call.
 *
 * <p>A refusal (anything but {@link KmsUnavailableException}: unknown KEK, forbidden, not a ciphertext of that KEK) is
 * remembered for {@link UnwrappedKeyLimits#failureTtl()}, at most {@link UnwrappedKeyLimits#maxFailures()} of them
 * apart from the keys: anyone who can write a record can write a bogus wrapped key, and without this every consumer
 * fetching that record would cost a KMS call. Outages are not remembered; {@link RetryingKms} paces those.</p>
 */
final class UnwrappedKeyCache {

    private final Kms kms;
    private final int maxEntries;
    private final long expireNanos;
    private final LongSupplier nanoClock;
    private final KeyRetirement retirement;
    private final CacheMeters meters;
    private final ConcurrentHashMap<WrappedKey, Entry> entries = new ConcurrentHashMap<>();
    /** Entries in insertion order, for eviction; may hold entries already gone from the map. */
    private final ConcurrentLinkedQueue<Entry> order = new ConcurrentLinkedQueue<>();
    private final AtomicInteger queued = new AtomicInteger();
    private final Refusals<WrappedKey> refusals;

    UnwrappedKeyCache(Kms kms, UnwrappedKeyLimits limits, LongSupplier nanoClock, KeyRetirement retirement, CacheMeters meters) {
        this.kms = kms;
        this.maxEntries = limits.maxEntries();
        this.expireNanos = limits.expireAfter().toNanos();
        this.nanoClock = nanoClock;
        this.retirement = retirement;
        this.meters = meters;
        this.refusals = new Refusals<>(limits.maxFailures(), limits.failureTtl().toNanos());
    }

    CompletionStage<SecretKey> get(WrappedKey wrapped) {
        Entry entry = entries.get(wrapped);
        if (entry == null) {
            Throwable refused = refusals.recent(wrapped, nanoClock.getAsLong());
            if (refused != null) {
                meters.refused();
                meters.failure(refused);
                return CompletableFuture.failedFuture(refused);
            }
            Entry fresh = new Entry(wrapped);
            entry = entries.putIfAbsent(wrapped, fresh);
            if (entry == null) {
                entry = fresh;
                order.add(fresh);
                queued.incrementAndGet();
                evictOverflow();
            }
        }
        return entry.get().whenComplete((key, failure) -> {
            if (failure != null) {
                meters.failure(failure);
            }
        });
    }

    /**
     * Adds a key known without asking the KMS: a data key this proxy generated, so that reading back what it wrote
     * needs no unwrap. Takes ownership of {@code key}; does nothing if the wrapped key is cached already.
     */
    void seed(WrappedKey wrapped, SecretKey key) {
        Entry fresh = new Entry(wrapped);
        fresh.preload(key, nanoClock.getAsLong());
        if (entries.putIfAbsent(wrapped, fresh) == null) {
            order.add(fresh);
            queued.incrementAndGet();
            evictOverflow();
        }
        else {
            KeyRetirement.destroy(key);
        }
    }

    int size() {
        return entries.size();
    }

    int refusalsRemembered() {
        return refusals.size();
    }

    /** Drops keys nobody has used for {@code expireAfter}, so that keys of old data do not stay in memory. */
    void sweep() {
        long now = nanoClock.getAsLong();
        entries.values().forEach(entry -> {
            if (entry.idleSince(now) && entries.remove(entry.wrapped, entry)) {
                entry.retire();
                meters.evicted("idle");
            }
        });
        purgeQueue();
        refusals.sweep(now);
    }

    void close() {
        entries.values().forEach(Entry::destroyNow);
        entries.clear();
        order.clear();
        queued.set(0);
        refusals.clear();
    }

    private void evictOverflow() {
        while (entries.size() > maxEntries) {
            Entry victim = order.poll();
            if (victim == null) {
                break;
            }
            queued.decrementAndGet();
            if (entries.remove(victim.wrapped, victim)) {
                victim.retire();
                meters.evicted("size");
            }
        }
        if (queued.get() > 2 * maxEntries + 64) {
            purgeQueue();
        }
    }

    /** Forgets queue entries whose map entry is gone (failed loads, idle drops), so the queue stays bounded. */
    private void purgeQueue() {
        order.removeIf(e -> {
            if (entries.get(e.wrapped) != e) {
                queued.decrementAndGet();
                return true;
            }
            return false;
        });
    }

    private void removeIfEmpty(Entry entry) {
        if (entry.isEmpty()) {
            entries.remove(entry.wrapped, entry);
        }
    }

    /** One wrapped key. Its lock guards its fields and is never held across a KMS call. */
    private final class Entry {
        final WrappedKey wrapped;
        private SecretKey key;
        private long loadedNanos;
        private long usedNanos;
        private CompletableFuture<SecretKey> loading;
        private boolean removed;

        Entry(WrappedKey wrapped) {
            this.wrapped = wrapped;
        }

        synchronized void preload(SecretKey loaded, long now) {
            key = loaded;
            loadedNanos = now;
            usedNanos = now;
        }

        CompletionStage<SecretKey> get() {
            long now = nanoClock.getAsLong();
            CompletableFuture<SecretKey> start = null;
            CompletableFuture<SecretKey> waitFor;
            SecretKey cached;
            boolean stale = false;
            synchronized (this) {
                usedNanos = now;
                cached = key;
                if (cached != null) {
                    stale = now - loadedNanos >= expireNanos;
                    if (stale && loading == null) {
                        start = loading = new CompletableFuture<>();
                    }
                }
                else if (loading == null) {
                    start = loading = new CompletableFuture<>();
                }
                waitFor = loading;
            }
            if (start != null) {
                load(start);
            }
            if (cached != null) {
                if (stale) {
                    meters.stale();
                }
                else {
                    meters.hit();
                }
                return CompletableFuture.completedFuture(cached);
            }
            meters.miss();
            // A copy, so that callers cannot complete the shared stage.
            return waitFor.copy();
        }

        private void load(CompletableFuture<SecretKey> target) {
            CompletionStage<SecretKey> unwrapped;
            try {
                unwrapped = kms.unwrap(wrapped);
            }
            catch (RuntimeException e) {
                unwrapped = CompletableFuture.failedFuture(e);
            }
            unwrapped.whenComplete((fresh, failure) -> {
                if (failure == null) {
                    loaded(fresh, target);
                }
                else {
                    failed(failure, target);
                }
            });
        }

        private void loaded(SecretKey fresh, CompletableFuture<SecretKey> target) {
            SecretKey result;
            SecretKey duplicate = null;
            // Evicted, or dropped after a failure, while this load was under way.
            boolean orphaned = entries.get(wrapped) != this;
            synchronized (this) {
                loading = null;
                loadedNanos = nanoClock.getAsLong();
                orphaned |= removed;
                if (key == null || orphaned) {
                    key = orphaned ? null : fresh;
                    result = fresh;
                }
                else {
                    // A refresh: the same ciphertext gives the same key, so keep the one callers already hold.
                    result = key;
                    duplicate = fresh;
                }
            }
            if (duplicate != null && duplicate != result) {
                KeyRetirement.destroy(duplicate);
            }
            if (orphaned) {
                // The waiting callers still get it, then it goes.
                retirement.retire(fresh);
            }
            target.complete(result);
        }

        private void failed(Throwable failure, CompletableFuture<SecretKey> target) {
            Throwable cause = KmsException.find(failure).<Throwable>map(e -> e).orElse(failure);
            boolean refused = cause instanceof UnknownKeyException || cause instanceof KmsForbiddenException;
            SecretKey dropped = null;
            synchronized (this) {
                loading = null;
                if (refused) {
                    dropped = key;
                    key = null;
                }
            }
            retirement.retire(dropped);
            if (!(cause instanceof KmsUnavailableException)) {
                refusals.remember(wrapped, cause, nanoClock.getAsLong());
            }
            removeIfEmpty(this);
            target.completeExceptionally(cause);
        }

        synchronized boolean isEmpty() {
            return key == null && loading == null;
        }

        synchronized boolean idleSince(long now) {
            return loading == null && now - usedNanos >= expireNanos;
        }

        void retire() {
            SecretKey dropped;
            synchronized (this) {
                removed = true;
                dropped = key;
                key = null;
            }
            retirement.retire(dropped);
        }

        void destroyNow() {
            SecretKey dropped;
            synchronized (this) {
                removed = true;
                dropped = key;
                key = null;
            }
            if (dropped != null) {
                KeyRetirement.destroy(dropped);
            }
        }
    }
}
