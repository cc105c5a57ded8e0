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
import io.sluice.kms.UnknownKeyException;

/**
 * One live data key per KEK, handed to every encryption until it has served {@link DataKeyLimits#maxRecords()} records
 * or grown older than {@link DataKeyLimits#maxAge()}.
 *
 * <p>Concurrency: each KEK has a slot whose lock guards a few fields and is never held across a KMS call. A missing or
 * used-up key is fetched once however many callers want it (they all wait on the same stage). An aged key keeps
 * serving while its replacement is fetched, and while the KMS is unavailable; an unknown or forbidden KEK drops it.
 */
final class DataKeyCache {

    private final Kms kms;
    private final DataKeyLimits limits;
    private final long maxAgeNanos;
    private final LongSupplier nanoClock;
    private final KeyRetirement retirement;
    private final CacheMeters meters;
    private final Consumer<DataKey> onGenerated;
    private final ConcurrentHashMap<String, Slot> slots = new ConcurrentHashMap<>();

    /** @param onGenerated told of each new data key, before anyone uses it */
    DataKeyCache(Kms kms, DataKeyLimits limits, LongSupplier nanoClock, KeyRetirement retirement, CacheMeters meters,
                 Consumer<DataKey> onGenerated) {
        this.kms = kms;
        this.limits = limits;
        this.maxAgeNanos = limits.maxAge().toNanos();
        this.nanoClock = nanoClock;
        this.retirement = retirement;
        this.meters = meters;
        this.onGenerated = onGenerated;
    }

    CompletionStage<DataKey> reserve(String kekName, int records) {
        if (records < 1 || records > limits.maxRecords()) {
            return CompletableFuture.failedFuture(new IllegalArgumentException(
                    "records: must be between 1 and the data key limit " + limits.maxRecords() + ", not " + records));
        }
        CompletionStage<DataKey> result = slots.computeIfAbsent(kekName, Slot::new).reserve(records, false, false);
        return result.whenComplete((key, failure) -> {
            if (failure != null) {
                meters.failure(failure);
            }
        });
    }

    /** Live keys, one per KEK in use. */
    int size() {
        return (int) slots.values().stream().filter(Slot::hasKey).count();
    }

    /** Drops keys that nobody has used for {@code maxAge}, so that a KEK no longer written to does not keep one. */
    void sweep() {
        long now = nanoClock.getAsLong();
        slots.values().forEach(slot -> slot.dropIfIdle(now));
    }

    void close() {
        slots.values().forEach(Slot::drop);
        slots.clear();
    }

    /** What one data key has left. Guarded by its slot's lock. */
    private static final class Live {
        final DataKey key;
        final long createdNanos;
        long remaining;
        long usedNanos;

        Live(DataKey key, long createdNanos, long remaining) {
            this.key = key;
            this.createdNanos = createdNanos;
            this.usedNanos = createdNanos;
            this.remaining = remaining;
        }
    }

    private final class Slot {
        private final String kekName;
        private Live live;
        private CompletableFuture<Live> pending;

        Slot(String kekName) {
            this.kekName = kekName;
        }

        /**
         * @param acceptAged whether an aged key may serve: not on the first look, so that a replacement that arrived at
         *        once (the in-process KMS answers synchronously) is used right away
         * @param waited whether this caller already waited for a key (and was counted as a miss)
         */
        CompletionStage<DataKey> reserve(int records, boolean acceptAged, boolean waited) {
            long now = nanoClock.getAsLong();
            CompletableFuture<Live> start = null;
            CompletableFuture<Live> next;
            DataKey hit = null;
            boolean aged;
            synchronized (this) {
                boolean usable = live != null && live.remaining >= records;
                aged = usable && now - live.createdNanos >= maxAgeNanos;
                if (usable && (!aged || acceptAged)) {
                    live.remaining -= records;
                    live.usedNanos = now;
                    hit = live.key;
                }
                else if (pending == null) {
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
                return reserve(records, true, waited);
            }
            if (!waited) {
                meters.miss();
            }
            return next.thenCompose(fresh -> reserve(records, false, true));
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
            synchronized (this) {
                old = live;
                live = fresh;
                pending = null;
            }
            if (old != null) {
                retirement.retire(old.key);
            }
            target.complete(fresh);
        }

        private void failed(Throwable failure, CompletableFuture<Live> target) {
            Throwable cause = KmsException.find(failure).<Throwable>map(e -> e).orElse(failure);
            boolean refused = cause instanceof UnknownKeyException || cause instanceof KmsForbiddenException;
            Live dropped = null;
            synchronized (this) {
                pending = null;
                if (refused) {
                    dropped = live;
                    live = null;
                }
            }
            if (dropped != null) {
                retirement.retire(dropped.key);
            }
            target.completeExceptionally(cause);
        }

        synchronized boolean hasKey() {
            return live != null;
        }

        void dropIfIdle(long now) {
            Live dropped = null;
            synchronized (this) {
                if (live != null && pending == null && now - live.usedNanos >= maxAgeNanos) {
                    dropped = live;
                    live = null;
                }
            }
            if (dropped != null) {
                retirement.retire(dropped.key);
            }
        }

        void drop() {
            Live dropped;
            synchronized (this) {
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
