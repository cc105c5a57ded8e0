package io.sluice.kms.cache;

import java.time.Duration;
import java.util.Arrays;
import java.util.Objects;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.function.DoubleSupplier;
import java.util.function.LongSupplier;
import java.util.stream.Stream;

import javax.crypto.SecretKey;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.sluice.kms.AesKey;
import io.sluice.kms.DataKey;
import io.sluice.kms.Kms;
import io.sluice.kms.KmsUnavailableException;
import io.sluice.kms.WrappedKey;

/**
 * The keys record encryption needs, with as few KMS calls as possible. This is what an encryption filter calls:
 *
 * <pre>{@code
 * KeyCache keys = KeyCache.create(kms, config, registry, timer);
 *
 * // produce: one data key per KEK, shared by many batches
 * keys.encryptionKey("kek-orders", batch.size()).thenApply(dk -> {
 *     // encrypt each record with dk.key() and a fresh random 96-bit nonce;
 *     // store dk.wrapped().toBytes() beside the ciphertext
 * });
 *
 * // fetch: the key from the bytes stored beside the ciphertext
 * keys.decryptionKey(WrappedKey.parse(stored)).thenApply(key -> ...decrypt...);
 * }</pre>
 *
 * <p>Both methods are thread-safe, never block (call them from any event loop), and complete on whichever thread
 * delivered the key: at once for a cached key, otherwise on the KMS client's thread. Concurrent requests for the same
 * key share one KMS call. KMS calls that fail with {@link KmsUnavailableException} are retried with backoff
 * ({@link RetryPolicy}); other failures are not. A refused unwrap is remembered for
 * {@link UnwrappedKeyLimits#failureTtl()} (a bogus wrapped key must not cost a KMS call per fetch), a refused KEK for
 * {@link DataKeyLimits#failureTtl()} (a topic whose KEK does not exist must not cost a KMS call per produce); an
 * outage is not remembered.
 *
 * <p><b>Key ownership.</b> Keys handed out belong to the cache: do not destroy them. Use a key when its stage completes;
 * a key that leaves the cache stays usable for {@link KeyCacheConfig#retiredKeyLifetime()} and is then destroyed.
 *
 * <p><b>KMS outage.</b> Cached keys keep serving: the live data key until it has served its
 * {@link DataKeyLimits#maxRecords() records} (its age limit is relaxed), every cached decryption key. Requests that
 * need the KMS fail with {@link KmsUnavailableException} after retries, and succeed again once it is back.
 *
 * <p>Data keys generated here also enter the decryption cache, so that reading back what this proxy wrote needs no
 * KMS call.
 *
 * <p><b>Bounds.</b> Both caches are bounded in entries, drop what nobody uses, and keep the KMS's refusals apart and
 * bounded too: KEK names can follow from topic names a client chooses, and wrapped keys are whatever a record's writer
 * put there. See {@link DataKeyLimits} and {@link UnwrappedKeyLimits}.
 *
 * <p>Meters: {@code sluice.kms.cache.requests{cache=data_key|unwrapped, result=hit|stale|miss|refused}},
 * {@code sluice.kms.cache.failures{cache, reason}}, {@code sluice.kms.cache.evictions{cache, reason=size|idle}},
 * {@code sluice.kms.cache.keys{cache}} (keys held), {@code sluice.kms.cache.entries{cache=data_key}} (KEKs with an
 * entry), {@code sluice.kms.cache.refusals{cache}} (refusals remembered) and {@code sluice.kms.retries{operation}}.
 */
public final class KeyCache implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(KeyCache.class);
    static final String KEYS = "sluice.kms.cache.keys";
    static final String ENTRIES = "sluice.kms.cache.entries";
    static final String REFUSALS = "sluice.kms.cache.refusals";

    private final DataKeyCache dataKeys;
    private final UnwrappedKeyCache unwrappedKeys;
    private final KeyRetirement retirement;
    private final ScheduledFuture<?> sweeper;

    /**
     * @param kms the provider; the cache does not close it
     * @param config validated here
     * @param registry for the cache's meters
     * @param timer runs backoff delays, key destruction and a periodic sweep; each task is short and never blocks, so
     *        a proxy event loop will do. The cache does not shut it down.
     * @throws IllegalArgumentException {@code "field: why"} for a bad config
     */
    public static KeyCache create(Kms kms, KeyCacheConfig config, MeterRegistry registry, ScheduledExecutorService timer) {
        return new KeyCache(kms, config, registry, timer, System::nanoTime, () -> ThreadLocalRandom.current().nextDouble());
    }

    KeyCache(Kms kms, KeyCacheConfig config, MeterRegistry registry, ScheduledExecutorService timer,
             LongSupplier nanoClock, DoubleSupplier random) {
        Objects.requireNonNull(kms, "kms");
        Objects.requireNonNull(config, "config").validate();
        Objects.requireNonNull(registry, "registry");
        Objects.requireNonNull(timer, "timer");
        Kms retrying = new RetryingKms(kms, config.retry(), timer, registry, nanoClock, random);
        this.retirement = new KeyRetirement(timer, config.retiredKeyLifetime());
        this.unwrappedKeys = new UnwrappedKeyCache(retrying, config.unwrappedKeys(), nanoClock, retirement, new CacheMeters(registry, "unwrapped"));
        // A copy, because each cache destroys its own keys on its own schedule.
        this.dataKeys = new DataKeyCache(retrying, config.dataKeys(), nanoClock, retirement, new CacheMeters(registry, "data_key"),
                generated -> unwrappedKeys.seed(generated.wrapped(), copy(generated.key())));
        Gauge.builder(KEYS, dataKeys, DataKeyCache::size).description("Keys held by the KMS key caches")
                .tag("cache", "data_key").register(registry);
        Gauge.builder(KEYS, unwrappedKeys, UnwrappedKeyCache::size).description("Keys held by the KMS key caches")
                .tag("cache", "unwrapped").register(registry);
        Gauge.builder(ENTRIES, dataKeys, DataKeyCache::entries).description("KEKs the data key cache holds an entry for: a key, or a request for one")
                .tag("cache", "data_key").register(registry);
        Gauge.builder(REFUSALS, dataKeys, DataKeyCache::refusalsRemembered).description("KMS refusals the key caches remember")
                .tag("cache", "data_key").register(registry);
        Gauge.builder(REFUSALS, unwrappedKeys, UnwrappedKeyCache::refusalsRemembered).description("KMS refusals the key caches remember")
                .tag("cache", "unwrapped").register(registry);
        long period = sweepPeriod(config).toNanos();
        this.sweeper = timer.scheduleAtFixedRate(this::sweep, period, period, TimeUnit.NANOSECONDS);
    }

    /**
     * The live data key for a KEK, with room for {@code records} more records; a new one is generated when there is
     * none, when it has served its records, or when it is too old.
     *
     * @param kekName the KEK's name in the KMS
     * @param records how many records the caller will encrypt with it, each with its own random nonce (1 to
     *        {@link DataKeyLimits#maxRecords()})
     * @return the data key, owned by the cache; fails with a {@link io.sluice.kms.KmsException} (or
     *         {@link IllegalArgumentException} for a bad {@code records})
     */
    public CompletionStage<DataKey> encryptionKey(String kekName, int records) {
        Objects.requireNonNull(kekName, "kekName");
        return dataKeys.reserve(kekName, records);
    }

    /**
     * The plaintext of a wrapped data key, from the cache or the KMS.
     *
     * @return the key, owned by the cache; fails with a {@link io.sluice.kms.KmsException}
     */
    public CompletionStage<SecretKey> decryptionKey(WrappedKey wrapped) {
        Objects.requireNonNull(wrapped, "wrapped");
        return unwrappedKeys.get(wrapped);
    }

    /** Destroys every cached key now. Does not close the {@link Kms}. */
    @Override
    public void close() {
        sweeper.cancel(false);
        dataKeys.close();
        unwrappedKeys.close();
        retirement.close();
    }

    private static SecretKey copy(SecretKey key) {
        byte[] material = key.getEncoded();
        try {
            return AesKey.copyOf(material);
        }
        finally {
            Arrays.fill(material, (byte) 0);
        }
    }

    void sweep() {
        try {
            dataKeys.sweep();
            unwrappedKeys.sweep();
        }
        catch (RuntimeException e) {
            LOG.warn("KMS key cache sweep failed: {}", e.toString());
        }
    }

    int refusalsRemembered() {
        return unwrappedKeys.refusalsRemembered();
    }

    int dataKeyRefusalsRemembered() {
        return dataKeys.refusalsRemembered();
    }

    /** KEKs with a data key cache entry. */
    int dataKeyEntries() {
        return dataKeys.entries();
    }

    /** Often enough that idle keys do not outstay their limits by much, seldom enough to cost nothing. */
    private static Duration sweepPeriod(KeyCacheConfig config) {
        Duration shortest = Stream.of(config.dataKeys().maxAge(), config.dataKeys().maxIdle(), config.unwrappedKeys().expireAfter())
                .min(Duration::compareTo).orElseThrow();
        Duration quarter = shortest.dividedBy(4);
        if (quarter.compareTo(Duration.ofSeconds(1)) < 0) {
            return Duration.ofSeconds(1);
        }
        return quarter.compareTo(Duration.ofMinutes(1)) > 0 ? Duration.ofMinutes(1) : quarter;
    }

    @Override
    public String toString() {
        return "KeyCache[" + dataKeys.size() + " data keys, " + unwrappedKeys.size() + " unwrapped keys]";
    }
}
