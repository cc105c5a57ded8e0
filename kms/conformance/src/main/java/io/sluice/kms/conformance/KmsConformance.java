package io.sluice.kms.conformance;

import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.stream.IntStream;

import javax.crypto.SecretKey;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Timer;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.sluice.kms.DataKey;
import io.sluice.kms.KekRef;
import io.sluice.kms.Kms;
import io.sluice.kms.KmsException;
import io.sluice.kms.KmsUnavailableException;
import io.sluice.kms.UnknownKeyException;
import io.sluice.kms.WrappedKey;
import io.sluice.kms.cache.DataKeyLimits;
import io.sluice.kms.cache.KeyCache;
import io.sluice.kms.cache.KeyCacheConfig;
import io.sluice.kms.cache.RetryPolicy;
import io.sluice.kms.cache.UnwrappedKeyLimits;
import io.sluice.kms.metrics.MeteredKms;
import io.sluice.testkit.TcpRelay;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * The tests every KMS provider passes, against a real server (or a stand-in speaking the real protocol): round trip,
 * unknown and wrong keys, a disabled KEK, an unreachable KMS, a slow KMS, rotation, and what the key cache
 * ({@link KeyCache}) does in each, since that is what record encryption sees. A provider's test extends this class and
 * supplies its {@link KmsFixture}:
 *
 * <pre>{@code
 * class AwsKmsConformanceTest extends KmsConformance {
 *     protected KmsFixture createFixture() throws Exception { return new MotoFixture(...); }
 * }
 * }</pre>
 *
 * <p>The provider is reached through a {@link TcpRelay} that the suite stops (unreachable) and slows down (slow), for
 * any KMS with a network. Calls are counted by the provider's own {@code sluice.kms.calls} meters, the count the
 * benchmarks report. Nothing here asserts a wall-clock time: waits are for conditions, with generous bounds.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
public abstract class KmsConformance {

    /** What the provider is given per request; the slow KMS answers later than this. */
    protected static final Duration REQUEST_TIMEOUT = Duration.ofSeconds(2);
    private static final Duration WAIT = Duration.ofSeconds(60);
    /** A key cache age short enough to pass within a test. */
    private static final Duration SHORT_AGE = Duration.ofSeconds(1);

    private KmsFixture fixture;
    private final List<AutoCloseable> closeables = new ArrayList<>();
    private SimpleMeterRegistry registry;
    private ScheduledExecutorService timer;
    private TcpRelay relay;
    private Kms kms;

    /** The fixture for this class's tests; closed after the last one. */
    protected abstract KmsFixture createFixture() throws Exception;

    @BeforeAll
    final void startFixture() throws Exception {
        fixture = createFixture();
    }

    @AfterAll
    final void closeFixture() throws Exception {
        if (fixture != null) {
            fixture.close();
        }
    }

    @BeforeEach
    final void connect() throws Exception {
        registry = new SimpleMeterRegistry();
        timer = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, "kms-conformance-timer");
            t.setDaemon(true);
            return t;
        });
        InetSocketAddress address = null;
        if (fixture.server().isPresent()) {
            InetSocketAddress server = fixture.server().get();
            relay = new TcpRelay(server.getHostString(), server.getPort());
            address = new InetSocketAddress("127.0.0.1", relay.port());
        }
        kms = fixture.connect(address, REQUEST_TIMEOUT, registry);
    }

    @AfterEach
    final void close() throws Exception {
        for (AutoCloseable c : closeables) {
            c.close();
        }
        closeables.clear();
        kms.close();
        if (relay != null) {
            relay.close();
            relay = null;
        }
        timer.shutdownNow();
    }

    // ---- round trip ----

    @Test
    void aDataKeyRoundTripsAndTheCacheServesItWithoutAskingAgain() throws Exception {
        String kek = fixture.createKek();
        KekRef ref = join(kms.resolveKek(kek));
        DataKey first = join(kms.generateDataKey(ref));
        DataKey second = join(kms.generateDataKey(ref));
        SecretKey unwrapped = join(kms.unwrap(WrappedKey.parse(first.wrapped().toBytes())));

        assertThat(ref.name()).isEqualTo(kek);
        assertThat(first.kek().name()).isEqualTo(kek);
        assertThat(first.wrapped().kekName()).isEqualTo(kek);
        assertThat(first.key().getAlgorithm()).isEqualTo("AES");
        assertThat(first.key().getEncoded()).hasSize(32).isEqualTo(unwrapped.getEncoded());
        assertThat(second.key().getEncoded()).isNotEqualTo(first.key().getEncoded());
        assertThat(second.wrapped()).isNotEqualTo(first.wrapped());
        assertThat(calls("resolve_kek", "success")).isEqualTo(1);
        assertThat(calls("generate_data_key", "success")).isEqualTo(2);
        assertThat(calls("unwrap", "success")).isEqualTo(1);

        // The cache: one data key for many batches, and what it generated decrypts without a KMS call.
        KeyCache cache = cache(KeyCacheConfig.defaults());
        DataKey live = join(cache.encryptionKey(kek, 10));
        assertThat(join(cache.encryptionKey(kek, 10))).isSameAs(live);
        assertThat(join(cache.decryptionKey(live.wrapped())).getEncoded()).isEqualTo(live.key().getEncoded());
        assertThat(calls("generate_data_key")).isEqualTo(3);
        assertThat(calls("unwrap")).isEqualTo(1);

        // A restarted proxy (an empty cache) unwraps once, then serves from its cache.
        KeyCache restarted = cache(KeyCacheConfig.defaults());
        assertThat(join(restarted.decryptionKey(live.wrapped())).getEncoded()).isEqualTo(live.key().getEncoded());
        assertThat(join(restarted.decryptionKey(live.wrapped())).getEncoded()).isEqualTo(live.key().getEncoded());
        assertThat(calls("unwrap")).isEqualTo(2);
    }

    // ---- unknown and wrong keys ----

    @Test
    void anAbsentKekIsUnknownAndTheCacheRemembersTheRefusal() throws Exception {
        String absent = fixture.absentKek();
        assertThat(failure(kms.resolveKek(absent))).isInstanceOf(UnknownKeyException.class);
        assertThat(failure(kms.generateDataKey(new KekRef(absent, 1)))).isInstanceOf(UnknownKeyException.class);

        KeyCache cache = cache(KeyCacheConfig.defaults());
        long before = calls("resolve_kek") + calls("generate_data_key");
        assertThat(failure(cache.encryptionKey(absent, 1))).isInstanceOf(UnknownKeyException.class);
        assertThat(failure(cache.encryptionKey(absent, 1))).isInstanceOf(UnknownKeyException.class);
        assertThat(calls("resolve_kek") + calls("generate_data_key") - before).as("KMS calls for two requests of an absent KEK").isEqualTo(1);
        assertThat(cacheRequests("data_key", "refused")).isEqualTo(1);

        // A real ciphertext presented under the absent KEK's name.
        DataKey real = join(kms.generateDataKey(join(kms.resolveKek(fixture.createKek()))));
        assertRefused(kms.unwrap(new WrappedKey(absent, real.wrapped().ciphertext())));
    }

    @Test
    void aKeyWrappedByAnotherKekOrCorruptIsRefusedNotRetriedAndRemembered() throws Exception {
        String a = fixture.createKek();
        String b = fixture.createKek();
        DataKey underA = join(kms.generateDataKey(join(kms.resolveKek(a))));
        byte[] ciphertext = underA.wrapped().ciphertext();
        byte[] flipped = ciphertext.clone();
        flipped[flipped.length - 1] ^= 1;

        assertRefused(kms.unwrap(new WrappedKey(b, ciphertext)));
        assertRefused(kms.unwrap(new WrappedKey(a, flipped)));
        assertRefused(kms.unwrap(new WrappedKey(a, new byte[] { 1, 2, 3 })));
        assertThat(calls("unwrap", "unavailable")).isZero();

        KeyCache cache = cache(KeyCacheConfig.defaults());
        long before = calls("unwrap");
        WrappedKey wrong = new WrappedKey(b, ciphertext);
        assertRefused(cache.decryptionKey(wrong));
        assertRefused(cache.decryptionKey(wrong));
        assertThat(calls("unwrap") - before).as("KMS calls for two requests of one wrong key").isEqualTo(1);
        assertThat(retries()).isZero();
        // The right key still unwraps: a refusal is remembered for its wrapped form only.
        assertThat(join(cache.decryptionKey(underA.wrapped())).getEncoded()).isEqualTo(underA.key().getEncoded());
    }

    // ---- disabled / revoked ----

    @Test
    void aDisabledKekIsRefusedCachedKeysGoAtTheirNextRefreshAndEnablingRestoresIt() throws Exception {
        String kek = fixture.createKek();
        KeyCache cache = cache(shortAges());
        DataKey live = join(cache.encryptionKey(kek, 1));
        DataKey other = join(kms.generateDataKey(join(kms.resolveKek(kek))));

        fixture.disable(kek);

        assertRefused(kms.resolveKek(kek));
        fixture.disabledKeysStillServed().ifPresentOrElse(
                why -> System.out.println("KMS conformance (" + fixture.provider() + "): data keys and unwraps under a disabled KEK not checked: " + why),
                () -> {
                    assertRefused(kms.generateDataKey(new KekRef(kek, 1)));
                    assertRefused(kms.unwrap(other.wrapped()));
                });
        // A restarted proxy cannot get a data key, and asks the KMS once for any number of requests.
        KeyCache restarted = cache(KeyCacheConfig.defaults());
        long before = calls("resolve_kek");
        assertRefused(restarted.encryptionKey(kek, 1));
        assertRefused(restarted.encryptionKey(kek, 1));
        assertThat(calls("resolve_kek") - before).isEqualTo(1);
        if (fixture.disabledKeysStillServed().isEmpty()) {
            assertRefused(restarted.decryptionKey(other.wrapped()));
        }
        // The warm cache's live key is replaced once aged, and the replacement is refused.
        await().atMost(WAIT).pollInterval(Duration.ofMillis(50)).until(() -> isRefused(cache.encryptionKey(kek, 1)));
        // ... and the aged key is wiped once its retirement (100 ms here) has passed.
        await().atMost(WAIT).until(live::isDestroyed);

        fixture.enable(kek);

        KeyCache afterEnable = cache(KeyCacheConfig.defaults());
        assertThat(join(afterEnable.encryptionKey(kek, 1)).key().getEncoded()).hasSize(32);
        assertThat(join(afterEnable.decryptionKey(other.wrapped())).getEncoded()).isEqualTo(other.key().getEncoded());
    }

    // ---- outages ----

    @Test
    void anUnreachableKmsIsUnavailableCachedKeysServeAndItRecoversByItself() throws Exception {
        assumeNetwork();
        String kek = fixture.createKek();
        String cold = fixture.createKek();
        KeyCache cache = cache(quickRetries(KeyCacheConfig.defaults()));
        DataKey live = join(cache.encryptionKey(kek, 1));
        DataKey other = join(kms.generateDataKey(join(kms.resolveKek(kek))));

        relay.stop();

        assertThat(failure(kms.resolveKek(kek))).isInstanceOf(KmsUnavailableException.class);
        assertThat(failure(kms.unwrap(other.wrapped()))).isInstanceOf(KmsUnavailableException.class);
        assertThat(join(cache.encryptionKey(kek, 1))).isSameAs(live);
        assertThat(join(cache.decryptionKey(live.wrapped())).getEncoded()).isEqualTo(live.key().getEncoded());
        assertThat(failure(cache.decryptionKey(other.wrapped()))).isInstanceOf(KmsUnavailableException.class);
        assertThat(failure(cache.encryptionKey(cold, 1))).isInstanceOf(KmsUnavailableException.class);
        assertThat(retries()).as("retries of unavailable calls").isPositive();
        assertThat(cacheRequests("data_key", "refused") + cacheRequests("unwrapped", "refused")).as("outages are not remembered").isZero();

        relay.start();

        await().atMost(WAIT).ignoreExceptions().untilAsserted(() ->
                assertThat(join(cache.decryptionKey(other.wrapped())).getEncoded()).isEqualTo(other.key().getEncoded()));
        assertThat(join(cache.encryptionKey(cold, 1)).key().getEncoded()).hasSize(32);
    }

    @Test
    void agedKeysKeepServingThroughAnOutageAndAreReplacedAfterIt() throws Exception {
        assumeNetwork();
        String kek = fixture.createKek();
        KeyCache cache = cache(quickRetries(shortAges()));
        DataKey live = join(cache.encryptionKey(kek, 1));
        WrappedKey other = join(kms.generateDataKey(join(kms.resolveKek(kek)))).wrapped();
        SecretKey unwrapped = join(cache.decryptionKey(other));

        relay.stop();

        // Past their age, both keys keep serving while the KMS cannot give replacements.
        await().atMost(WAIT).pollInterval(Duration.ofMillis(50)).until(() -> {
            assertThat(join(cache.encryptionKey(kek, 1))).isSameAs(live);
            assertThat(join(cache.decryptionKey(other))).isSameAs(unwrapped);
            return cacheRequests("data_key", "stale") > 0 && cacheRequests("unwrapped", "stale") > 0
                    && calls("generate_data_key", "unavailable") + calls("resolve_kek", "unavailable") > 0;
        });
        assertThat(live.isDestroyed()).isFalse();

        relay.start();

        await().atMost(WAIT).pollInterval(Duration.ofMillis(50)).until(() -> join(cache.encryptionKey(kek, 1)) != live);
        assertThat(join(cache.decryptionKey(other)).getEncoded()).isEqualTo(unwrapped.getEncoded());
    }

    @Test
    void aSlowKmsTimesOutAsUnavailableCachedKeysDoNotWaitAndConcurrentRequestsShareOneCall() throws Exception {
        assumeNetwork();
        String kek = fixture.createKek();
        KeyCache cache = cache(quickRetries(KeyCacheConfig.defaults()));
        DataKey live = join(cache.encryptionKey(kek, 1));

        relay.latency(REQUEST_TIMEOUT.plusSeconds(2));
        try {
            assertThat(failure(kms.resolveKek(kek))).isInstanceOf(KmsUnavailableException.class);
            CompletableFuture<DataKey> cached = cache.encryptionKey(kek, 1).toCompletableFuture();
            CompletableFuture<SecretKey> cachedUnwrap = cache.decryptionKey(live.wrapped()).toCompletableFuture();
            assertThat(cached).as("a cached data key while the KMS is slow").isCompletedWithValue(live);
            assertThat(cachedUnwrap).as("a cached unwrapped key while the KMS is slow").isDone();
        }
        finally {
            relay.latency(Duration.ofMillis(300));
        }

        // Slow but within the timeout: requests for one KEK's data key made together wait for one KMS call.
        String busy = fixture.createKek();
        KeyCache fresh = cache(KeyCacheConfig.defaults());
        long resolves = calls("resolve_kek", "success");
        long generations = calls("generate_data_key", "success");
        List<CompletableFuture<DataKey>> together = IntStream.range(0, 8)
                .mapToObj(i -> fresh.encryptionKey(busy, 1).toCompletableFuture()).toList();
        List<DataKey> keys = together.stream().map(KmsConformance::join).toList();
        assertThat(keys).allSatisfy(k -> assertThat(k).isSameAs(keys.get(0)));
        assertThat(calls("resolve_kek", "success") - resolves).isEqualTo(1);
        assertThat(calls("generate_data_key", "success") - generations).isEqualTo(1);
        relay.latency(Duration.ZERO);
    }

    // ---- rotation ----

    @Test
    void afterRotationNewDataKeysUseTheNewMaterialAndOldOnesStillUnwrap() throws Exception {
        String kek = fixture.createKek();
        DataKey before = join(kms.generateDataKey(join(kms.resolveKek(kek))));
        KeyCache cache = cache(new KeyCacheConfig(new DataKeyLimits(1L, null), null, null, null));
        DataKey cachedBefore = join(cache.encryptionKey(kek, 1));

        fixture.rotate(kek);

        DataKey after = join(kms.generateDataKey(join(kms.resolveKek(kek))));
        assertThat(fixture.wrappingKey(after.wrapped())).isNotEqualTo(fixture.wrappingKey(before.wrapped()));
        assertThat(join(kms.unwrap(before.wrapped())).getEncoded()).isEqualTo(before.key().getEncoded());
        assertThat(join(kms.unwrap(after.wrapped())).getEncoded()).isEqualTo(after.key().getEncoded());

        // The cache's next data key (one record per key here) is wrapped by the new material.
        DataKey cachedAfter = join(cache.encryptionKey(kek, 1));
        assertThat(cachedAfter).isNotSameAs(cachedBefore);
        assertThat(fixture.wrappingKey(cachedAfter.wrapped())).isEqualTo(fixture.wrappingKey(after.wrapped()));
        KeyCache restarted = cache(KeyCacheConfig.defaults());
        assertThat(join(restarted.decryptionKey(cachedBefore.wrapped())).getEncoded()).isEqualTo(cachedBefore.key().getEncoded());
        assertThat(join(restarted.decryptionKey(cachedAfter.wrapped())).getEncoded()).isEqualTo(cachedAfter.key().getEncoded());
    }

    // ---- cache expiry ----

    @Test
    void agedDataKeysAreReplacedAndExpiredUnwrappedKeysAreUnwrappedAgain() throws Exception {
        String kek = fixture.createKek();
        WrappedKey stored = join(kms.generateDataKey(join(kms.resolveKek(kek)))).wrapped();
        KeyCache cache = cache(shortAges());
        DataKey live = join(cache.encryptionKey(kek, 1));
        // The cache wipes a key it lets go (AesKey.destroy), so its bytes are taken now, and a key the cache lets go
        // between being handed out and being read below is simply asked for again.
        byte[] unwrapped = join(cache.decryptionKey(stored)).getEncoded();
        long unwraps = calls("unwrap", "success");
        long generations = calls("generate_data_key", "success");

        await().atMost(WAIT).pollInterval(Duration.ofMillis(50)).until(() -> join(cache.encryptionKey(kek, 1)) != live);
        await().atMost(WAIT).pollInterval(Duration.ofMillis(50)).until(() -> {
            byte[] now;
            try {
                now = join(cache.decryptionKey(stored)).getEncoded();
            }
            catch (IllegalStateException destroyed) {
                return false;
            }
            assertThat(now).isEqualTo(unwrapped);
            return calls("unwrap", "success") > unwraps;
        });
        assertThat(calls("generate_data_key", "success")).isGreaterThan(generations);
        assertThat(registry.find(MeteredKms.CALLS).tag("provider", fixture.provider()).timers()).isNotEmpty();
    }

    // ---- helpers ----

    private void assumeNetwork() {
        assumeTrue(relay != null, () -> fixture.provider() + " has no network to cut or slow down");
    }

    private KeyCache cache(KeyCacheConfig config) {
        KeyCache cache = KeyCache.create(kms, config, registry, timer);
        closeables.add(cache);
        return cache;
    }

    private static KeyCacheConfig shortAges() {
        return new KeyCacheConfig(new DataKeyLimits(null, SHORT_AGE, null, null, null, null),
                new UnwrappedKeyLimits(null, SHORT_AGE, null, null), null, Duration.ofMillis(100));
    }

    private static KeyCacheConfig quickRetries(KeyCacheConfig config) {
        return new KeyCacheConfig(config.dataKeys(), config.unwrappedKeys(),
                new RetryPolicy(3, Duration.ofMillis(20), Duration.ofMillis(100), Duration.ofSeconds(10)), config.retiredKeyLifetime());
    }

    /** The provider's calls of one operation, every outcome. */
    private long calls(String operation) {
        return registry.find(MeteredKms.CALLS).tag("operation", operation).timers().stream().mapToLong(Timer::count).sum();
    }

    private long calls(String operation, String outcome) {
        return registry.find(MeteredKms.CALLS).tag("operation", operation).tag("outcome", outcome).timers().stream()
                .mapToLong(Timer::count).sum();
    }

    private long retries() {
        return (long) registry.find("sluice.kms.retries").counters().stream().mapToDouble(Counter::count).sum();
    }

    private long cacheRequests(String cache, String result) {
        return (long) registry.find("sluice.kms.cache.requests").tag("cache", cache).tag("result", result).counters().stream()
                .mapToDouble(Counter::count).sum();
    }

    private static <T> T join(CompletionStage<T> stage) {
        try {
            return stage.toCompletableFuture().get(WAIT.toSeconds(), TimeUnit.SECONDS);
        }
        catch (ExecutionException e) {
            throw new AssertionError("the KMS call failed: " + e.getCause(), e.getCause());
        }
        catch (Exception e) {
            throw new AssertionError("the KMS call did not complete: " + e, e);
        }
    }

    /** The KmsException a stage failed with; an AssertionError when it succeeded or failed otherwise. */
    private static KmsException failure(CompletionStage<?> stage) {
        Object value;
        try {
            value = stage.toCompletableFuture().get(WAIT.toSeconds(), TimeUnit.SECONDS);
        }
        catch (ExecutionException e) {
            return KmsException.find(e.getCause()).orElseThrow(() -> new AssertionError("not a KmsException: " + e.getCause(), e.getCause()));
        }
        catch (Exception e) {
            throw new AssertionError("the KMS call did not complete: " + e, e);
        }
        throw new AssertionError("expected a failure, got " + (value instanceof byte[] b ? Arrays.toString(b) : value));
    }

    /** Fails non-retriably: a refusal (unknown, forbidden, not this KEK's ciphertext), never "unavailable". */
    private static void assertRefused(CompletionStage<?> stage) {
        KmsException e = failure(stage);
        assertThat(e.isRetriable()).as("%s is a refusal, not an outage", e).isFalse();
    }

    private static boolean isRefused(CompletionStage<?> stage) {
        try {
            stage.toCompletableFuture().get(WAIT.toSeconds(), TimeUnit.SECONDS);
            return false;
        }
        catch (ExecutionException e) {
            return KmsException.find(e.getCause()).map(k -> !k.isRetriable()).orElse(false);
        }
        catch (Exception e) {
            return false;
        }
    }
}
