package io.sluice.kms.cache;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

import javax.crypto.SecretKey;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.sluice.kms.DataKey;
import io.sluice.kms.KmsForbiddenException;
import io.sluice.kms.KmsUnavailableException;
import io.sluice.kms.UnknownKeyException;
import io.sluice.kms.WrappedKey;
import io.sluice.kms.fakes.ManualClock;
import io.sluice.kms.fakes.ScriptedKms;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class KeyCacheTest {

    private static final Duration AGE = Duration.ofMinutes(10);

    private final ScheduledExecutorService timer = Executors.newSingleThreadScheduledExecutor();
    private final SimpleMeterRegistry registry = new SimpleMeterRegistry();
    private final ManualClock clock = new ManualClock();
    private final ScriptedKms kms = new ScriptedKms("kek-a", "kek-b");
    private final List<KeyCache> caches = new ArrayList<>();

    @AfterEach
    void stop() {
        caches.forEach(KeyCache::close);
        timer.shutdownNow();
    }

    /** Retries quick and few; retired keys destroyed at once so tests can see it. */
    private KeyCache cache(long maxRecords, int maxEntries) {
        KeyCacheConfig config = new KeyCacheConfig(
                new DataKeyLimits(maxRecords, AGE),
                new UnwrappedKeyLimits(maxEntries, AGE),
                new RetryPolicy(3, Duration.ofMillis(1), Duration.ofMillis(2), Duration.ofSeconds(5)),
                Duration.ZERO);
        KeyCache cache = new KeyCache(kms, config, registry, timer, clock, () -> 0.5);
        caches.add(cache);
        return cache;
    }

    private KeyCache cache() {
        return cache(1_000, 100);
    }

    /** Like {@link #cache(long, int)}, over {@code kms} and with these data key limits. */
    private KeyCache cache(ScriptedKms kms, DataKeyLimits dataKeys) {
        KeyCacheConfig config = new KeyCacheConfig(dataKeys, new UnwrappedKeyLimits(100, AGE),
                new RetryPolicy(3, Duration.ofMillis(1), Duration.ofMillis(2), Duration.ofSeconds(5)), Duration.ZERO);
        KeyCache cache = new KeyCache(kms, config, registry, timer, clock, () -> 0.5);
        caches.add(cache);
        return cache;
    }

    private double evictions(String cache, String reason) {
        return registry.get(CacheMeters.EVICTIONS).tag("cache", cache).tag("reason", reason).counter().count();
    }

    private double gauge(String name, String cache) {
        return registry.get(name).tag("cache", cache).gauge().value();
    }

    private static <T> T join(java.util.concurrent.CompletionStage<T> stage) {
        return stage.toCompletableFuture().join();
    }

    private double requests(String cache, String result) {
        return registry.get(CacheMeters.REQUESTS).tag("cache", cache).tag("result", result).counter().count();
    }

    @Test
    void dataKeyIsReusedUntilItsRecordsAreSpent() {
        KeyCache cache = cache(10, 100);
        DataKey first = join(cache.encryptionKey("kek-a", 4));
        DataKey second = join(cache.encryptionKey("kek-a", 4));
        DataKey third = join(cache.encryptionKey("kek-a", 4));

        assertThat(second).isSameAs(first);
        assertThat(third).isNotSameAs(first);
        assertThat(kms.generateCalls).hasValue(2);
        assertThat(first.isDestroyed()).as("the spent key is destroyed once retired").isTrue();
        assertThat(third.isDestroyed()).isFalse();
        assertThat(requests("data_key", "hit")).isEqualTo(1);
        assertThat(requests("data_key", "miss")).isEqualTo(2);
    }

    @Test
    void noDataKeyServesMoreRecordsThanItsLimitUnderConcurrency() throws Exception {
        KeyCache cache = cache(100, 100);
        ExecutorService callers = Executors.newFixedThreadPool(8);
        java.util.Map<DataKey, java.util.concurrent.atomic.AtomicInteger> uses = new java.util.concurrent.ConcurrentHashMap<>();
        try {
            List<java.util.concurrent.Future<?>> done = new ArrayList<>();
            for (int t = 0; t < 8; t++) {
                done.add(callers.submit(() -> {
                    for (int i = 0; i < 1000; i++) {
                        DataKey key = join(cache.encryptionKey("kek-a", 1));
                        uses.computeIfAbsent(key, k -> new java.util.concurrent.atomic.AtomicInteger()).incrementAndGet();
                    }
                }));
            }
            for (java.util.concurrent.Future<?> f : done) {
                f.get(1, TimeUnit.MINUTES);
            }
        }
        finally {
            callers.shutdownNow();
        }
        assertThat(uses.values()).allSatisfy(n -> assertThat(n.get()).isEqualTo(100));
        assertThat(uses).hasSize(80);
        assertThat(kms.generateCalls).hasValue(80);
    }

    @Test
    void eachKekHasItsOwnDataKey() {
        KeyCache cache = cache();
        DataKey a = join(cache.encryptionKey("kek-a", 1));
        DataKey b = join(cache.encryptionKey("kek-b", 1));
        assertThat(a.kek().name()).isEqualTo("kek-a");
        assertThat(b.kek().name()).isEqualTo("kek-b");
        assertThat(join(cache.encryptionKey("kek-a", 1))).isSameAs(a);
    }

    @Test
    void dataKeyIsReplacedOnceTooOld() {
        KeyCache cache = cache();
        DataKey first = join(cache.encryptionKey("kek-a", 1));
        clock.advance(AGE.minusSeconds(1));
        assertThat(join(cache.encryptionKey("kek-a", 1))).isSameAs(first);
        clock.advance(Duration.ofSeconds(1));

        DataKey replaced = join(cache.encryptionKey("kek-a", 1));

        assertThat(replaced).isNotSameAs(first);
        assertThat(kms.generateCalls).hasValue(2);
        assertThat(join(cache.encryptionKey("kek-a", 1))).isSameAs(replaced);
    }

    @Test
    void agedDataKeyServesWhileItsReplacementIsOnItsWay() {
        KeyCache cache = cache();
        DataKey first = join(cache.encryptionKey("kek-a", 1));
        clock.advance(AGE);
        kms.hold();

        assertThat(join(cache.encryptionKey("kek-a", 1))).isSameAs(first);
        assertThat(join(cache.encryptionKey("kek-a", 1))).isSameAs(first);
        assertThat(kms.resolveCalls).as("one replacement, however many requests").hasValue(2);

        kms.release();
        assertThat(join(cache.encryptionKey("kek-a", 1))).isNotSameAs(first);
        assertThat(requests("data_key", "stale")).isEqualTo(2);
    }

    @Test
    void requestsForMoreRecordsThanTheLimitAreRefused() {
        KeyCache cache = cache(10, 100);
        assertThatThrownBy(() -> join(cache.encryptionKey("kek-a", 11))).hasCauseInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> join(cache.encryptionKey("kek-a", 0))).hasCauseInstanceOf(IllegalArgumentException.class);
        assertThat(kms.generateCalls).hasValue(0);
    }

    @Test
    void concurrentRequestsForOneKekShareOneKmsCall() throws Exception {
        KeyCache cache = cache();
        kms.hold();
        ExecutorService callers = Executors.newFixedThreadPool(4);
        CountDownLatch go = new CountDownLatch(1);
        List<CompletableFuture<DataKey>> results = new ArrayList<>();
        try {
            for (int i = 0; i < 40; i++) {
                results.add(CompletableFuture.supplyAsync(() -> {
                    await(go);
                    return cache.encryptionKey("kek-a", 1);
                }, callers).thenCompose(s -> s));
            }
            go.countDown();
            org.awaitility.Awaitility.await().until(() -> kms.resolveCalls.get() == 1 && kms.heldCalls() == 1);
            kms.release();
            List<DataKey> keys = results.stream().map(CompletableFuture::join).toList();
            assertThat(keys).allSatisfy(k -> assertThat(k).isSameAs(keys.get(0)));
            assertThat(kms.resolveCalls).hasValue(1);
            assertThat(kms.generateCalls).hasValue(1);
        }
        finally {
            callers.shutdownNow();
        }
    }

    @Test
    void concurrentRequestsForOneWrappedKeyShareOneKmsCall() throws Exception {
        WrappedKey wrapped = join(kms.real.generateDataKey(new io.sluice.kms.KekRef("kek-a", 1))).wrapped();
        KeyCache cache = cache();
        kms.hold();
        List<CompletableFuture<SecretKey>> results = new ArrayList<>();
        for (int i = 0; i < 20; i++) {
            results.add(cache.decryptionKey(wrapped).toCompletableFuture());
        }
        assertThat(kms.unwrapCalls).hasValue(1);
        kms.release();
        List<SecretKey> keys = results.stream().map(CompletableFuture::join).toList();
        assertThat(keys).allSatisfy(k -> assertThat(k).isSameAs(keys.get(0)));
    }

    @Test
    void unwrappedKeysAreServedFromTheCache() {
        DataKey generated = join(kms.real.generateDataKey(new io.sluice.kms.KekRef("kek-a", 1)));
        KeyCache cache = cache();

        SecretKey first = join(cache.decryptionKey(generated.wrapped()));
        SecretKey again = join(cache.decryptionKey(WrappedKey.parse(generated.wrapped().toBytes())));

        assertThat(first.getEncoded()).isEqualTo(generated.key().getEncoded());
        assertThat(again).isSameAs(first);
        assertThat(kms.unwrapCalls).hasValue(1);
        assertThat(requests("unwrapped", "hit")).isEqualTo(1);
        assertThat(requests("unwrapped", "miss")).isEqualTo(1);
    }

    @Test
    void dataKeysGeneratedHereDecryptWithoutTheKms() {
        KeyCache cache = cache(1, 100);
        DataKey first = join(cache.encryptionKey("kek-a", 1));
        SecretKey key = join(cache.decryptionKey(first.wrapped()));

        assertThat(key.getEncoded()).isEqualTo(first.key().getEncoded());
        assertThat(kms.unwrapCalls).hasValue(0);

        join(cache.encryptionKey("kek-a", 1));
        assertThat(first.isDestroyed()).as("the spent data key is retired").isTrue();
        assertThat(join(cache.decryptionKey(first.wrapped())).getEncoded()).as("its copy still decrypts").hasSize(32);
    }

    @Test
    void expiredUnwrappedKeyIsUnwrappedAgainWhileTheCachedOneServes() {
        WrappedKey wrapped = join(kms.real.generateDataKey(new io.sluice.kms.KekRef("kek-a", 1))).wrapped();
        KeyCache cache = cache();
        SecretKey first = join(cache.decryptionKey(wrapped));
        clock.advance(AGE);

        SecretKey served = join(cache.decryptionKey(wrapped));

        assertThat(served).isSameAs(first);
        assertThat(kms.unwrapCalls).as("unwrapped again after expiry").hasValue(2);
        assertThat(first.isDestroyed()).isFalse();
        join(cache.decryptionKey(wrapped));
        assertThat(kms.unwrapCalls).as("fresh again").hasValue(2);
    }

    @Test
    void unwrappedCacheIsBoundedAndDropsTheOldestFirst() {
        KeyCache cache = cache(1_000, 3);
        List<WrappedKey> wrapped = new ArrayList<>();
        List<SecretKey> keys = new ArrayList<>();
        for (int i = 0; i < 5; i++) {
            wrapped.add(join(kms.real.generateDataKey(new io.sluice.kms.KekRef("kek-a", 1))).wrapped());
            keys.add(join(cache.decryptionKey(wrapped.get(i))));
        }
        assertThat(registry.get(KeyCache.KEYS).tag("cache", "unwrapped").gauge().value()).isEqualTo(3);
        assertThat(keys.get(0).isDestroyed()).isTrue();
        assertThat(keys.get(4).isDestroyed()).isFalse();

        join(cache.decryptionKey(wrapped.get(4)));
        assertThat(kms.unwrapCalls).hasValue(5);
        join(cache.decryptionKey(wrapped.get(0)));
        assertThat(kms.unwrapCalls).as("the evicted key needs the KMS again").hasValue(6);
    }

    @Test
    void failuresAreNotCached() {
        KeyCache cache = cache();
        WrappedKey wrapped = join(kms.real.generateDataKey(new io.sluice.kms.KekRef("kek-a", 1))).wrapped();
        kms.failWith(() -> new KmsUnavailableException("down"));
        assertThatThrownBy(() -> join(cache.encryptionKey("kek-a", 1))).hasCauseInstanceOf(KmsUnavailableException.class);
        assertThatThrownBy(() -> join(cache.decryptionKey(wrapped))).hasCauseInstanceOf(KmsUnavailableException.class);
        kms.recover();

        assertThat(join(cache.encryptionKey("kek-a", 1))).isNotNull();
        assertThat(join(cache.decryptionKey(wrapped))).isNotNull();
        assertThat(registry.get(CacheMeters.FAILURES).tag("reason", "unavailable").tag("cache", "data_key").counter().count()).isEqualTo(1);
    }

    @Test
    void aRefusedUnwrapIsRememberedForItsTtlAndBoundedApartFromTheKeys() {
        KeyCache cache = cache();
        WrappedKey bogus = new WrappedKey("kek-a", "in-process:v1:bm90LWEta2V5LWF0LWFsbC1qdXN0LWJ5dGVz".getBytes());
        for (int retry = 0; retry < 20; retry++) {
            assertThatThrownBy(() -> join(cache.decryptionKey(bogus))).hasCauseInstanceOf(io.sluice.kms.KmsException.class);
        }
        assertThat(kms.unwrapCalls).as("one KMS call, however often a consumer fetches the record").hasValue(1);
        assertThat(requests("unwrapped", "refused")).isEqualTo(19);

        clock.advance(UnwrappedKeyLimits.DEFAULT_FAILURE_TTL);
        assertThatThrownBy(() -> join(cache.decryptionKey(bogus))).hasCauseInstanceOf(io.sluice.kms.KmsException.class);
        assertThat(kms.unwrapCalls).as("asked again once the refusal is older than failureTtl").hasValue(2);

        // Many bogus keys push out old refusals, never cached keys.
        WrappedKey good = join(kms.real.generateDataKey(new io.sluice.kms.KekRef("kek-a", 1))).wrapped();
        SecretKey goodKey = join(cache.decryptionKey(good));
        for (int i = 0; i < UnwrappedKeyLimits.DEFAULT_MAX_FAILURES + 10; i++) {
            WrappedKey other = new WrappedKey("kek-a", ("in-process:v1:" + i).getBytes());
            assertThatThrownBy(() -> join(cache.decryptionKey(other))).isNotNull();
        }
        assertThat(cache.refusalsRemembered()).isEqualTo(UnwrappedKeyLimits.DEFAULT_MAX_FAILURES);
        assertThat(join(cache.decryptionKey(good))).isSameAs(goodKey);
    }

    @Test
    void anUnknownKekIsRememberedButAnOutageIsNot() {
        KeyCache cache = cache();
        WrappedKey gone = new WrappedKey("kek-gone", "in-process:v1:AAAA".getBytes());
        assertThatThrownBy(() -> join(cache.decryptionKey(gone))).hasCauseInstanceOf(UnknownKeyException.class);
        assertThatThrownBy(() -> join(cache.decryptionKey(gone))).hasCauseInstanceOf(UnknownKeyException.class);
        assertThat(kms.unwrapCalls).hasValue(1);

        WrappedKey wrapped = join(kms.real.generateDataKey(new io.sluice.kms.KekRef("kek-a", 1))).wrapped();
        kms.failWith(() -> new KmsUnavailableException("down"));
        assertThatThrownBy(() -> join(cache.decryptionKey(wrapped))).hasCauseInstanceOf(KmsUnavailableException.class);
        kms.recover();
        assertThat(join(cache.decryptionKey(wrapped))).isNotNull();
    }

    @Test
    void theDataKeyCacheHoldsAtMostMaxEntriesKeksAndDropsTheLeastRecentlyUsed() {
        List<String> keks = new ArrayList<>();
        for (int i = 0; i < 20; i++) {
            keks.add("kek-" + i);
        }
        ScriptedKms many = new ScriptedKms(keks.toArray(String[]::new));
        KeyCache cache = cache(many, new DataKeyLimits(1_000L, AGE, 3, null, null, null));
        DataKey busy = join(cache.encryptionKey("kek-0", 1));
        DataKey firstEvicted = null;
        for (int i = 1; i < keks.size(); i++) {
            clock.advance(Duration.ofSeconds(1));
            DataKey key = join(cache.encryptionKey(keks.get(i), 1));
            firstEvicted = firstEvicted == null ? key : firstEvicted;
            clock.advance(Duration.ofSeconds(1));
            assertThat(join(cache.encryptionKey("kek-0", 1))).as("the KEK in use stays").isSameAs(busy);
            assertThat(cache.dataKeyEntries()).isLessThanOrEqualTo(3);
        }

        assertThat(many.generateCalls).as("one data key per KEK: the busy one was never dropped").hasValue(20);
        assertThat(evictions("data_key", "size")).isEqualTo(17);
        assertThat(gauge(KeyCache.ENTRIES, "data_key")).isEqualTo(3);
        assertThat(firstEvicted.isDestroyed()).as("an evicted KEK's data key is retired").isTrue();
    }

    @Test
    void aKekEvictedWhileItsKeyIsOnItsWayStillServesTheCallersThatAsked() {
        KeyCache cache = cache(kms, new DataKeyLimits(1_000L, AGE, 1, null, null, null));
        kms.hold();
        var first = cache.encryptionKey("kek-a", 1).toCompletableFuture();
        clock.advance(Duration.ofSeconds(1));
        var second = cache.encryptionKey("kek-b", 1).toCompletableFuture();
        assertThat(cache.dataKeyEntries()).isEqualTo(1);

        kms.release();

        assertThat(first.join()).isNotNull();
        assertThat(second.join()).isNotNull();
        assertThat(cache.dataKeyEntries()).isEqualTo(1);
        assertThat(cache.encryptionKey("kek-b", 1).toCompletableFuture().join()).isSameAs(second.join());
    }

    @Test
    void anIdleKekEntryIsSweptAfterMaxIdle() {
        KeyCache cache = cache(kms, new DataKeyLimits(1_000L, AGE, null, Duration.ofMinutes(5), null, null));
        DataKey key = join(cache.encryptionKey("kek-a", 1));
        clock.advance(Duration.ofMinutes(5).minusSeconds(1));
        cache.sweep();
        assertThat(cache.dataKeyEntries()).isEqualTo(1);
        clock.advance(Duration.ofSeconds(1));

        cache.sweep();

        assertThat(cache.dataKeyEntries()).isZero();
        assertThat(key.isDestroyed()).isTrue();
        assertThat(evictions("data_key", "idle")).isEqualTo(1);
    }

    @Test
    void aKekTheKmsDoesNotHaveCostsOneLookupPerFailureTtlAndLeavesNoEntry() {
        KeyCache cache = cache();
        for (int produce = 0; produce < 20; produce++) {
            assertThatThrownBy(() -> join(cache.encryptionKey("kek-missing", 1))).hasCauseInstanceOf(UnknownKeyException.class);
        }
        assertThat(kms.resolveCalls).as("one KMS lookup, however often the topic is produced to").hasValue(1);
        assertThat(requests("data_key", "refused")).isEqualTo(19);
        assertThat(cache.dataKeyEntries()).as("a refused KEK keeps no cache entry").isZero();
        assertThat(gauge(KeyCache.REFUSALS, "data_key")).isEqualTo(1);

        clock.advance(DataKeyLimits.DEFAULT_FAILURE_TTL.minusMillis(1));
        assertThatThrownBy(() -> join(cache.encryptionKey("kek-missing", 1))).hasCauseInstanceOf(UnknownKeyException.class);
        assertThat(kms.resolveCalls).hasValue(1);
        clock.advance(Duration.ofMillis(1));
        assertThatThrownBy(() -> join(cache.encryptionKey("kek-missing", 1))).hasCauseInstanceOf(UnknownKeyException.class);
        assertThat(kms.resolveCalls).as("asked again once the refusal is failureTtl old").hasValue(2);

        // A KEK created meanwhile is used once the refusal has expired.
        kms.real.createKey("kek-missing");
        clock.advance(DataKeyLimits.DEFAULT_FAILURE_TTL);
        assertThat(join(cache.encryptionKey("kek-missing", 1))).isNotNull();
        assertThat(kms.resolveCalls).hasValue(3);
    }

    @Test
    void aForbiddenKekIsRememberedLikeAnUnknownOne() {
        KeyCache cache = cache();
        kms.failWith(() -> new KmsForbiddenException("permission denied"));
        assertThatThrownBy(() -> join(cache.encryptionKey("kek-a", 1))).hasCauseInstanceOf(KmsForbiddenException.class);
        kms.recover();
        assertThatThrownBy(() -> join(cache.encryptionKey("kek-a", 1))).hasCauseInstanceOf(KmsForbiddenException.class);
        assertThat(kms.resolveCalls).hasValue(1);
    }

    @Test
    void aKmsOutageIsNotRememberedForAKek() {
        KeyCache cache = cache();
        kms.failWith(() -> new KmsUnavailableException("down"));
        assertThatThrownBy(() -> join(cache.encryptionKey("kek-a", 1))).hasCauseInstanceOf(KmsUnavailableException.class);
        int afterFirst = kms.resolveCalls.get();
        assertThatThrownBy(() -> join(cache.encryptionKey("kek-a", 1))).hasCauseInstanceOf(KmsUnavailableException.class);
        assertThat(kms.resolveCalls.get()).as("every request asks the KMS again").isGreaterThan(afterFirst);
        assertThat(gauge(KeyCache.REFUSALS, "data_key")).isZero();
        assertThat(cache.dataKeyEntries()).as("nor does a failed KEK keep an entry").isZero();

        kms.recover();
        assertThat(join(cache.encryptionKey("kek-a", 1))).as("served as soon as the KMS is back, no TTL to wait out").isNotNull();
    }

    @Test
    void refusedKeksAreBoundedApartFromLiveKeys() {
        KeyCache cache = cache(kms, new DataKeyLimits(1_000L, AGE, 2, null, null, 5));
        DataKey live = join(cache.encryptionKey("kek-a", 1));
        for (int i = 0; i < 50; i++) {
            String missing = "team-a.topic-" + i;
            assertThatThrownBy(() -> join(cache.encryptionKey(missing, 1))).hasCauseInstanceOf(UnknownKeyException.class);
        }
        assertThat(cache.dataKeyRefusalsRemembered()).isEqualTo(5);
        assertThat(cache.dataKeyEntries()).isEqualTo(1);
        assertThat(join(cache.encryptionKey("kek-a", 1))).as("refusals never push a live key out").isSameAs(live);
    }

    @Test
    void unknownKekFailsWithoutRetries() {
        KeyCache cache = cache();
        assertThatThrownBy(() -> join(cache.encryptionKey("nope", 1))).hasCauseInstanceOf(UnknownKeyException.class);
        assertThat(kms.resolveCalls).hasValue(1);
    }

    @Test
    void cachedKeysKeepServingThroughAnOutageAndTheCacheRecoversAfterIt() {
        KeyCache cache = cache();
        DataKey dataKey = join(cache.encryptionKey("kek-a", 1));
        WrappedKey known = join(kms.real.generateDataKey(new io.sluice.kms.KekRef("kek-a", 1))).wrapped();
        WrappedKey unknown = join(kms.real.generateDataKey(new io.sluice.kms.KekRef("kek-a", 1))).wrapped();
        SecretKey knownKey = join(cache.decryptionKey(known));

        kms.failWith(() -> new KmsUnavailableException("down"));
        clock.advance(AGE.multipliedBy(2));

        assertThat(join(cache.encryptionKey("kek-a", 1))).as("aged, but nothing better").isSameAs(dataKey);
        assertThat(join(cache.decryptionKey(known))).isSameAs(knownKey);
        assertThatThrownBy(() -> join(cache.decryptionKey(unknown))).hasCauseInstanceOf(KmsUnavailableException.class);
        assertThat(kms.unwrapCalls.get()).as("retried").isGreaterThan(3);

        kms.recover();
        assertThat(join(cache.decryptionKey(unknown))).isNotNull();
        assertThat(join(cache.encryptionKey("kek-a", 1))).isNotSameAs(dataKey);
    }

    @Test
    void spentDataKeyIsNotUsedPastItsRecordsEvenInAnOutage() {
        KeyCache cache = cache(2, 100);
        join(cache.encryptionKey("kek-a", 2));
        kms.failWith(() -> new KmsUnavailableException("down"));
        assertThatThrownBy(() -> join(cache.encryptionKey("kek-a", 1))).hasCauseInstanceOf(KmsUnavailableException.class);
    }

    @Test
    void revokedAccessDropsCachedKeysAtTheirNextRefresh() {
        KeyCache cache = cache();
        WrappedKey wrapped = join(kms.real.generateDataKey(new io.sluice.kms.KekRef("kek-a", 1))).wrapped();
        SecretKey key = join(cache.decryptionKey(wrapped));
        DataKey dataKey = join(cache.encryptionKey("kek-a", 1));
        kms.failWith(() -> new KmsForbiddenException("permission denied"));
        clock.advance(AGE);

        // The refresh is refused at once here, so the next request already sees the refusal.
        assertThatThrownBy(() -> join(cache.encryptionKey("kek-a", 1))).hasCauseInstanceOf(KmsForbiddenException.class);
        join(cache.decryptionKey(wrapped));
        assertThatThrownBy(() -> join(cache.decryptionKey(wrapped))).hasCauseInstanceOf(KmsForbiddenException.class);
        assertThat(key.isDestroyed()).isTrue();
        assertThat(dataKey.isDestroyed()).isTrue();
    }

    @Test
    void idleKeysAreSweptAway() {
        KeyCache cache = cache();
        DataKey dataKey = join(cache.encryptionKey("kek-a", 1));
        SecretKey key = join(cache.decryptionKey(dataKey.wrapped()));
        clock.advance(AGE.minusSeconds(1));
        cache.sweep();
        assertThat(dataKey.isDestroyed()).isFalse();
        clock.advance(Duration.ofSeconds(1));

        cache.sweep();

        assertThat(dataKey.isDestroyed()).isTrue();
        assertThat(key.isDestroyed()).isTrue();
        assertThat(registry.get(KeyCache.KEYS).tag("cache", "data_key").gauge().value()).isZero();
        assertThat(registry.get(KeyCache.KEYS).tag("cache", "unwrapped").gauge().value()).isZero();
    }

    @Test
    void retiredKeysStayUsableForTheirLifetime() {
        KeyCacheConfig config = new KeyCacheConfig(new DataKeyLimits(1L, AGE), null, null, Duration.ofHours(1));
        KeyCache cache = new KeyCache(kms, config, registry, timer, clock, () -> 0.5);
        caches.add(cache);
        DataKey first = join(cache.encryptionKey("kek-a", 1));
        DataKey second = join(cache.encryptionKey("kek-a", 1));
        assertThat(second).as("the first key, used up, was replaced").isNotSameAs(first);
        assertThat(first.isDestroyed()).isFalse();

        cache.close();

        assertThat(first.isDestroyed()).isTrue();
    }

    @Test
    void closeDestroysEveryKey() {
        KeyCache cache = cache();
        DataKey dataKey = join(cache.encryptionKey("kek-a", 1));
        SecretKey key = join(cache.decryptionKey(dataKey.wrapped()));
        cache.close();
        assertThat(dataKey.isDestroyed()).isTrue();
        assertThat(key.isDestroyed()).isTrue();
    }

    @Test
    void badConfigIsRefusedNamingTheField() {
        KeyCacheConfig config = new KeyCacheConfig(new DataKeyLimits(1L << 32, null), null, null, null);
        assertThatThrownBy(() -> KeyCache.create(kms, config, registry, timer))
                .isInstanceOf(IllegalArgumentException.class).hasMessageStartingWith("dataKeys.maxRecords:");
        assertThatThrownBy(() -> KeyCache.create(kms, new KeyCacheConfig(new DataKeyLimits(null, null, 0, null, null, null), null, null, null), registry, timer))
                .isInstanceOf(IllegalArgumentException.class).hasMessageStartingWith("dataKeys.maxEntries:");
        assertThatThrownBy(() -> KeyCache.create(kms, new KeyCacheConfig(new DataKeyLimits(null, null, null, Duration.ZERO, null, null), null, null, null), registry, timer))
                .isInstanceOf(IllegalArgumentException.class).hasMessageStartingWith("dataKeys.maxIdle:");
        assertThatThrownBy(() -> KeyCache.create(kms, new KeyCacheConfig(new DataKeyLimits(null, null, null, null, Duration.ofSeconds(-1), null), null, null, null), registry, timer))
                .isInstanceOf(IllegalArgumentException.class).hasMessageStartingWith("dataKeys.failureTtl:");
        assertThatThrownBy(() -> KeyCache.create(kms, new KeyCacheConfig(new DataKeyLimits(null, null, null, null, null, 0), null, null, null), registry, timer))
                .isInstanceOf(IllegalArgumentException.class).hasMessageStartingWith("dataKeys.maxFailures:");
        KeyCacheConfig retry = new KeyCacheConfig(null, null, new RetryPolicy(0, null, null, null), null);
        assertThatThrownBy(() -> KeyCache.create(kms, retry, registry, timer))
                .isInstanceOf(IllegalArgumentException.class).hasMessageStartingWith("retry.maxAttempts:");
    }

    @Test
    void defaultsAreTheDocumentedOnes() {
        KeyCacheConfig defaults = KeyCacheConfig.defaults();
        assertThat(defaults.dataKeys().maxRecords()).isEqualTo(1_000_000L);
        assertThat(defaults.dataKeys().maxAge()).isEqualTo(Duration.ofHours(1));
        assertThat(defaults.dataKeys().maxEntries()).isEqualTo(1_000);
        assertThat(defaults.dataKeys().maxIdle()).isEqualTo(Duration.ofHours(1));
        assertThat(defaults.dataKeys().failureTtl()).isEqualTo(Duration.ofSeconds(30));
        assertThat(defaults.dataKeys().maxFailures()).isEqualTo(1_000);
        assertThat(new DataKeyLimits(null, Duration.ofMinutes(5)).maxIdle()).as("maxIdle follows maxAge unless set").isEqualTo(Duration.ofMinutes(5));
        assertThat(defaults.unwrappedKeys().maxEntries()).isEqualTo(10_000);
        assertThat(defaults.unwrappedKeys().expireAfter()).isEqualTo(Duration.ofHours(1));
        assertThat(defaults.unwrappedKeys().failureTtl()).isEqualTo(Duration.ofSeconds(30));
        assertThat(defaults.unwrappedKeys().maxFailures()).isEqualTo(1_000);
    }

    private static void await(CountDownLatch latch) {
        try {
            latch.await(10, TimeUnit.SECONDS);
        }
        catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
