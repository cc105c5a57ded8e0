package io.sluice.kms.cache;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Consumer;
import java.util.function.LongSupplier;

import io.sluice.kms.DataKey;
import io.sluice.kms.Kms;
import io.sluice.kms.KmsException;
import io.sluice.kms.KmsForbiddenException;
import io.sluice.kms.KmsUnavailableException;
import io.sluice.kms.UnknownKeyException;

/**
 * One live data key per KEK, handed to every encryption until it has served {@link DataKeyLimits#maxRecords()} records
 * or grown older than {@link DataKeyLimits#maxAge()}.
 *
 * <p>Concurrency: each KEK has a slot whose lock guards a few fields and is never held across a KMS call. A missing or
 * used-up key is fetched once however many callers want it (they all wait on the same stage). An aged key keeps
 * serving while its replacement is fetched, and while the KMS is unavailable; an unknown or forbidden KEK drops it.
 *
 * <p>Bounds: KEK names can come from topic names a client chooses, so the slots are bounded. At most
 * {@link DataKeyLimits#maxEntries()} slots (the least recently used dropped first), a slot unused for
 * {@link DataKeyLimits#maxIdle()} is swept away, and a KEK the KMS refused leaves no slot behind: the refusal is kept
 * apart ({@link Refusals}, at most {@link DataKeyLimits#maxFailures()}) and is the answer for
 * {@link DataKeyLimits#failureTtl()}. An outage is not remembered: it says nothing about the KEK, a remembered one
 * would refuse produces for a KEK that exists after the KMS is back, and concurrent requests for a KEK already share
 * one call (with {@link RetryingKms}'s backoff), which bounds what an outage costs.
 */
final class DataKeyCache {

    private final Kms kms;
    private final DataKeyLimits limits;
    private final long maxAgeNanos;
    private final long maxIdleNanos;
    private final LongSupplier nanoClock;
    private final KeyRetirement retirement;
    private final CacheMeters meters;
    private final Consumer<DataKey> onGenerated;
    private final ConcurrentHashMap<String, Slot> slots = new ConcurrentHashMap<>();
    private final Refusals<String> refusals;

    /** @param onGenerated told of each new data key, before anyone uses it */
    DataKeyCache(Kms kms, DataKeyLimits limits, LongSupplier nanoClock, KeyRetirement retirement, CacheMeters meters,
                 Consumer<DataKey> onGenerated) {
        this.kms = kms;
        this.limits = limits;
        this.maxAgeNanos = limits.maxAge().toNanos();
        this.maxIdleNanos = limits.maxIdle().toNanos();
        this.nanoClock = nanoClock;
        this.retirement = retirement;
        this.meters = meters;
        this.onGenerated = onGenerated;
        this.refusals = new Refusals<>(limits.maxFailures(), limits.failureTtl().toNanos());
    }

    CompletionStage<DataKey> reserve(String kekName, int records) {
        if (records < 1 || records > limits.maxRecords()) {
            return CompletableFuture.failedFuture(new IllegalArgumentException(
                    "records: must be between 1 and the data key limit " + limits.maxRecords() + ", not " + records));
        }
        return reserveInSlot(kekName, records).whenComplete((key, failure) -> {
            if (failure != null) {
                meters.failure(failure);
            }
        });
    }

    /** Through the KEK's slot, made if there is none, unless the KMS refused this KEK within the TTL. */
    private CompletionStage<DataKey> reserveInSlot(String kekName, int records) {
        while (true) {
            Slot slot = slots.get(kekName);
            if (slot == null) {
                long now = nanoClock.getAsLong();
                Throwable refused = refusals.recent(kekName, now);
                if (refused != null) {
                    meters.refused();
                    return CompletableFuture.failedFuture(refused);
                }
                Slot fresh = new Slot(kekName, now);
                slot = slots.putIfAbsent(kekName, fresh);
                if (slot == null) {
                    slot = fresh;
                    evictOverflow(fresh);
                }
            }
            CompletionStage<DataKey> reserved = slot.reserve(records, false, false);
            if (reserved != null) {
                return reserved;
            }
            // A slot on its way out of the map (evicted, swept, or left by a failure): help it out, look again.
            slots.remove(kekName, slot);
        }
    }

    /** Live keys, one per KEK in use. */
    int size() {
        return (int) slots.values().stream().filter(Slot::hasKey).count();
    }

    /** KEKs with a slot: a live key, or a request for one under way. Never more than {@code maxEntries} for long. */
    int entries() {
        return slots.size();
    }

    int refusalsRemembered() {
        return refusals.size();
    }

    /** Drops slots that nobody has used for {@code maxIdle}, so that a KEK no longer written to does not keep one. */
    void sweep() {
        long now = nanoClock.getAsLong();
        slots.values().forEach(slot -> {
            if (slot.idleSince(now) && remove(slot)) {
                meters.evicted("idle");
            }
        });
        refusals.sweep(now);
    }

    void close() {
        slots.values().forEach(Slot::drop);
        slots.clear();
        refusals.clear();
    }

    /**
     * Drops the least recently used slots (never {@code added}) while there are more than {@code maxEntries}. A scan,
     * only when a new KEK arrives at a full cache: the hot path, a KEK already cached, never gets here.
     */
    private void evictOverflow(Slot added) {
        while (slots.size() > limits.maxEntries()) {
            Slot oldest = null;
            for (Slot slot : slots.values()) {
                if (slot != added && (oldest == null || slot.usedNanos - oldest.usedNanos < 0)) {
                    oldest = slot;
                }
            }
            if (oldest == null) {
                return;
            }
            if (remove(oldest)) {
                meters.evicted("size");
            }
        }
    }

    /** Takes {@code slot} out of the map and retires its key; callers already waiting on it still get theirs. */
    private boolean remove(Slot slot) {
        if (!slots.remove(slot.kekName, slot)) {
            return false;
        }
        slot.retire();
        return true;
    }

    /** What one data key has left. Guarded by its slot's lock. */
    private static final class Live {
        final DataKey key;
        final long createdNanos;
        long remaining;

        Live(DataKey key, long createdNanos, long remaining) {
            this.key = key;
            this.createdNanos = createdNanos;
            this.remaining = remaining;
        }
    }

    private final class Slot {
        private final String kekName;
        /** When a caller last asked this slot for a key: for least-recently-used eviction and the idle sweep. */
        private volatile long usedNanos;
        private Live live;
        private CompletableFuture<Live> pending;
        /** Out of the map: serves what it has to callers that already hold it, never asks the KMS again. */
        private boolean removed;

        Slot(String kekName, long now) {
            this.kekName = kekName;
            this.usedNanos = now;
        }

        /**
         * @param acceptAged whether an aged key may serve: not on the first look, so that a replacement that arrived at
         *        once (the in-process KMS answers synchronously) is used right away
         * @param waited whether this caller already waited for a key (and was counted as a miss)
         * @return null when the slot is removed and has nothing for this caller: it never asks the KMS again
         */
        CompletionStage<DataKey> reserve(int records, boolean acceptAged, boolean waited) {
            long now = nanoClock.getAsLong();
            usedNanos = now;
            CompletableFuture<Live> start = null;
            CompletableFuture<Live> next;
            DataKey hit = null;
            boolean aged;
            synchronized (this) {
                boolean usable = live != null && live.remaining >= records;
                aged = usable && now - live.createdNanos >= maxAgeNanos;
                if (usable && (!aged || acceptAged)) {
                    live.remaining -= records;
                    hit = live.key;
                }
                else if (pending == null) {
                    if (removed) {
                        return null;
                    }
                    start = pending = new CompletableFuture<>();
                }
                next = pending;
            }
            if (start != null) {
                generate(start);
            }
            if (hit != null) {
                if (!waited) {
                    if (aged) {
                        meters.stale();
                    }
                    else {
                        meters.hit();
                    }
                }
                return CompletableFuture.completedFuture(hit);
            }
            if (aged) {
                return again(records, true, waited);
            }
            if (!waited) {
                meters.miss();
            }
            return next.thenCompose(fresh -> again(records, false, true));
        }

        /** {@link #reserve} once more, through the map if this slot was removed meanwhile. */
        private CompletionStage<DataKey> again(int records, boolean acceptAged, boolean waited) {
            CompletionStage<DataKey> reserved = reserve(records, acceptAged, waited);
            return reserved != null ? reserved : reserveInSlot(kekName, records);
        }

        private void generate(CompletableFuture<Live> target) {
            CompletionStage<DataKey> generated;
            try {
                generated = kms.resolveKek(kekName).thenCompose(kms::generateDataKey);
            }
            catch (RuntimeException e) {
                generated = CompletableFuture.failedFuture(e);
            }
            generated.whenComplete((key, failure) -> {
                if (failure == null) {
                    installed(key, target);
                }
                else {
                    failed(failure, target);
                }
            });
        }

        private void installed(DataKey key, CompletableFuture<Live> target) {
            onGenerated.accept(key);
            Live fresh = new Live(key, nanoClock.getAsLong(), limits.maxRecords());
            Live old;
            boolean orphaned;
            synchronized (this) {
                old = live;
                live = fresh;
                pending = null;
                orphaned = removed;
            }
            if (old != null) {
                retirement.retire(old.key);
            }
            target.complete(fresh);
            if (orphaned) {
                // The callers that waited for it have reserved from it; nobody else can reach this slot.
                retire();
            }
        }

        private void failed(Throwable failure, CompletableFuture<Live> target) {
            Throwable cause = KmsException.find(failure).<Throwable>map(e -> e).orElse(failure);
            boolean refused = cause instanceof UnknownKeyException || cause instanceof KmsForbiddenException;
            if (cause instanceof KmsException && !(cause instanceof KmsUnavailableException)) {
                // A definite answer about this KEK. Remembered before the slot goes, so that no request slips between.
                refusals.remember(kekName, cause, nanoClock.getAsLong());
            }
            Live dropped = null;
            boolean empty;
            synchronized (this) {
                pending = null;
                if (refused) {
                    dropped = live;
                    live = null;
                }
                empty = live == null;
                // A KEK without a key keeps no slot: a client naming topic after topic whose KEKs do not exist fills
                // only the bounded refusals (or, during an outage, nothing).
                removed |= empty;
            }
            if (dropped != null) {
                retirement.retire(dropped.key);
            }
            if (empty) {
                slots.remove(kekName, this);
            }
            target.completeExceptionally(cause);
        }

        synchronized boolean hasKey() {
            return live != null;
        }

        synchronized boolean idleSince(long now) {
            return pending == null && now - usedNanos >= maxIdleNanos;
        }

        /** Marks the slot removed and retires its key (a request under way keeps going; its key is retired on arrival). */
        void retire() {
            Live dropped;
            synchronized (this) {
                removed = true;
                dropped = live;
                live = null;
            }
            if (dropped != null) {
                retirement.retire(dropped.key);
            }
        }

        void drop() {
            Live dropped;
            synchronized (this) {
                removed = true;
                dropped = live;
                live = null;
            }
            if (dropped != null) {
                dropped.key.destroy();
            }
        }
    }

    @Override
    public String toString() {
        return "DataKeyCache[" + slots.size() + " KEKs]";
    }
}
