package io.sluice.format.registry;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.sluice.format.registry.RegistryStandIn.Misbehaviour;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** {@link CachingSchemaSource}: what reaches the registry, counted on the stand-in, with a clock the test moves. */
class CachingSchemaSourceTest {

    private static final String V1 = RegistryClientTest.PAYMENT;
    private static final String V2 = RegistryClientTest.MONEY;

    private final SimpleMeterRegistry meters = new SimpleMeterRegistry();
    private final AtomicLong clock = new AtomicLong(1_000_000_000L);
    private RegistryStandIn registry;
    private CachingSchemaSource source;

    @BeforeEach
    void start() throws Exception {
        registry = RegistryStandIn.start();
        source = source(RegistryCacheConfig.defaults(), Duration.ofSeconds(5));
    }

    @AfterEach
    void stop() {
        source.close();
        registry.close();
    }

    private CachingSchemaSource source(RegistryCacheConfig cache, Duration timeout) {
        RegistryConfig config = new RegistryConfig(registry.url(), null, null, timeout, RegistryConfig.DEFAULT_MAX_RESPONSE_BYTES, cache);
        return new CachingSchemaSource(RegistryClient.create(config, meters), cache, meters, clock::get);
    }

    private void advance(Duration d) {
        clock.addAndGet(d.toNanos());
    }

    private double lookups(String result) {
        return meters.get(CachingSchemaSource.LOOKUPS).tag("result", result).counter().count();
    }

    @Test
    void aSchemaIdIsFetchedOnce() throws Exception {
        int id = registry.register("s", V1);
        for (int i = 0; i < 100; i++) {
            assertThat(source.byId(id).text()).isEqualTo(V1);
            advance(Duration.ofHours(1));
        }
        assertThat(registry.requests("schemas.ids")).isEqualTo(1);
        assertThat(lookups("hit")).isEqualTo(99);
        assertThat(meters.get(CachingSchemaSource.CACHED).gauge().value()).isEqualTo(1);
    }

    @Test
    void concurrentLookupsOfOneIdShareOneRequest() throws Exception {
        int id = registry.register("s", V1);
        // Slow enough that all threads arrive while the first request is out.
        registry.misbehave(Misbehaviour.delay(Duration.ofMillis(500)));
        int threads = 16;
        ExecutorService pool = Executors.newFixedThreadPool(threads);
        try {
            CountDownLatch go = new CountDownLatch(1);
            List<Future<RegisteredSchema>> results = new ArrayList<>();
            for (int i = 0; i < threads; i++) {
                results.add(pool.submit(() -> {
                    go.await();
                    return source.byId(id);
                }));
            }
            go.countDown();
            for (Future<RegisteredSchema> r : results) {
                assertThat(r.get().text()).isEqualTo(V1);
            }
        }
        finally {
            pool.shutdownNow();
        }
        assertThat(registry.requests()).isEqualTo(1);
        assertThat(lookups("miss") + lookups("shared") + lookups("hit")).isEqualTo(threads);
        assertThat(lookups("miss")).isEqualTo(1);
    }

    @Test
    void aFailedLookupIsRememberedForTheFailureTtl() throws Exception {
        assertThatThrownBy(() -> source.byId(42)).matches(e -> ((SchemaUnavailableException) e).notFound());
        for (int i = 0; i < 50; i++) {
            assertThatThrownBy(() -> source.byId(42)).isInstanceOf(SchemaUnavailableException.class)
                    .matches(e -> ((SchemaUnavailableException) e).notFound()).hasMessageContaining("schema id 42");
        }
        assertThat(registry.requests("schemas.ids")).isEqualTo(1);
        assertThat(lookups("failed")).isEqualTo(50);

        advance(RegistryCacheConfig.DEFAULT_FAILURE_TTL.minusMillis(1));
        assertThatThrownBy(() -> source.byId(42)).isInstanceOf(SchemaUnavailableException.class);
        assertThat(registry.requests("schemas.ids")).isEqualTo(1);

        // Registered meanwhile: found once the failure is forgotten.
        registry.register("s", V1);
        registry.register("t", V2);
        advance(Duration.ofMillis(1));
        assertThatThrownBy(() -> source.byId(42)).isInstanceOf(SchemaUnavailableException.class);
        assertThat(source.byId(2).text()).isEqualTo(V2);
        assertThat(registry.requests("schemas.ids")).isEqualTo(3);
    }

    @Test
    void theLatestVersionIsRefreshedAfterItsPeriod() throws Exception {
        registry.register("s", V1);
        assertThat(source.latest("s").text()).isEqualTo(V1);
        registry.register("s", V2);
        advance(RegistryCacheConfig.DEFAULT_LATEST_REFRESH.minusMillis(1));
        assertThat(source.latest("s").text()).isEqualTo(V1);
        advance(Duration.ofMillis(1));
        assertThat(source.latest("s").text()).isEqualTo(V2);
        assertThat(registry.requests("subjects.versions.get")).isEqualTo(2);
        // Learnt by subject, kept by id: a record written with it needs no request.
        assertThat(source.byId(source.latest("s").id()).text()).isEqualTo(V2);
        assertThat(registry.requests("schemas.ids")).isZero();
    }

    @Test
    void theLatestVersionKeepsServingWhileTheRegistryIsDown() throws Exception {
        int id = registry.register("s", V1);
        assertThat(source.latest("s").id()).isEqualTo(id);
        registry.stop();
        advance(RegistryCacheConfig.DEFAULT_LATEST_REFRESH.plusSeconds(1));
        for (int i = 0; i < 5; i++) {
            assertThat(source.latest("s").id()).isEqualTo(id);
            advance(Duration.ofHours(1));
        }
        assertThat(lookups("stale")).isEqualTo(5);
        // Nothing cached for this one: it fails, and does not wait out the timeout again.
        assertThatThrownBy(() -> source.latest("other")).isInstanceOf(RegistryUnreachableException.class);

        registry.restart();
        advance(RegistryCacheConfig.DEFAULT_FAILURE_TTL);
        int newer = registry.register("s", V2);
        assertThat(source.latest("s").id()).isEqualTo(newer);
    }

    @Test
    void aSubjectThatIsGoneIsNotServedStale() throws Exception {
        registry.register("s", V1);
        source.latest("s");
        advance(RegistryCacheConfig.DEFAULT_LATEST_REFRESH);
        registry.misbehave(Misbehaviour.status(404, RegistryError.SUBJECT_NOT_FOUND));
        assertThatThrownBy(() -> source.latest("s")).matches(e -> ((SchemaUnavailableException) e).notFound());
    }

    @Test
    void anUnreachableRegistryIsNotAskedAboutAnythingNewForTheFailureTtl() throws Exception {
        source.close();
        source = source(RegistryCacheConfig.defaults(), Duration.ofMillis(300));
        registry.misbehave(Misbehaviour.delay(Duration.ofSeconds(30)));
        assertThatThrownBy(() -> source.byId(1)).isInstanceOf(RegistryUnreachableException.class);
        // Each of these would otherwise wait out the timeout on the reader thread.
        for (int id = 2; id < 50; id++) {
            int i = id;
            assertThatThrownBy(() -> source.byId(i)).isInstanceOf(RegistryUnreachableException.class)
                    .hasMessageContaining("did not answer within 300 ms");
        }
        assertThat(registry.requests()).isEqualTo(1);
        registry.behave();
        registry.register("s", V1);
        advance(RegistryCacheConfig.DEFAULT_FAILURE_TTL);
        assertThat(source.byId(1).text()).isEqualTo(V1);
    }

    @Test
    void aFloodOfDistinctUnknownIdsKeepsTheFailureMemoryBounded() throws Exception {
        AtomicInteger asked = new AtomicInteger();
        SchemaSource notFound = new SchemaSource() {
            @Override
            public RegisteredSchema byId(int id) throws SchemaUnavailableException {
                asked.incrementAndGet();
                throw new SchemaUnavailableException("schema id " + id + " is not in the schema registry", true);
            }

            @Override
            public RegisteredSchema latest(String subject) {
                throw new UnsupportedOperationException();
            }

            @Override
            public RegisteredSchema bySubjectVersion(String subject, int version) {
                throw new UnsupportedOperationException();
            }
        };
        RegistryCacheConfig cache = new RegistryCacheConfig(100, Duration.ofSeconds(30), 1000, null);
        SimpleMeterRegistry floodMeters = new SimpleMeterRegistry();
        try (CachingSchemaSource flooded = new CachingSchemaSource(notFound, cache, floodMeters, clock::get)) {
            for (int id = 0; id < 100_000; id++) {
                int i = id;
                assertThatThrownBy(() -> flooded.byId(i)).isInstanceOf(SchemaUnavailableException.class);
                assertThat(flooded.rememberedFailures()).isLessThanOrEqualTo(1000);
            }
            assertThat(flooded.rememberedFailures()).isEqualTo(1000);
            assertThat(floodMeters.get(CachingSchemaSource.FAILURES).gauge().value()).isEqualTo(1000);
            // The newest are the ones remembered.
            assertThatThrownBy(() -> flooded.byId(99_999)).isInstanceOf(SchemaUnavailableException.class);
            assertThat(asked.get()).isEqualTo(100_000);
            advance(Duration.ofSeconds(31));
            assertThatThrownBy(() -> flooded.byId(5)).isInstanceOf(SchemaUnavailableException.class);
            // Expired failures go as soon as anything is looked up.
            assertThat(flooded.rememberedFailures()).isEqualTo(1);
        }
    }

    @Test
    void theSchemaCacheIsBoundedLeastRecentlyUsedFirst() throws Exception {
        source.close();
        source = source(new RegistryCacheConfig(3, null, 10, null), Duration.ofSeconds(5));
        int a = registry.register("a", V1);
        int b = registry.register("b", V2);
        int c = registry.register("c", SchemaType.JSON, "{}", List.of());
        int d = registry.register("d", SchemaType.JSON, "{\"type\":\"object\"}", List.of());
        source.byId(a);
        source.byId(b);
        source.byId(c);
        source.byId(a);
        source.byId(d);
        assertThat(source.cachedSchemas()).isEqualTo(3);
        assertThat(meters.get(CachingSchemaSource.EVICTIONS).counter().count()).isEqualTo(1);
        int before = registry.requests("schemas.ids");
        source.byId(a);
        assertThat(registry.requests("schemas.ids")).isEqualTo(before);
        source.byId(b);
        assertThat(registry.requests("schemas.ids")).isEqualTo(before + 1);
    }

    /** A registry of big schemas: id n is a JSON schema of {@code bytes} characters; counts what it was asked. */
    private static SchemaSource bigSchemas(int chars, AtomicInteger asked) {
        String text = "{\"description\":\"" + "x".repeat(chars - 18) + "\"}";
        return new SchemaSource() {
            @Override
            public RegisteredSchema byId(int id) {
                asked.incrementAndGet();
                return new RegisteredSchema(id, SchemaType.JSON, text, List.of());
            }

            @Override
            public RegisteredSchema latest(String subject) {
                throw new UnsupportedOperationException();
            }

            @Override
            public RegisteredSchema bySubjectVersion(String subject, int version) {
                throw new UnsupportedOperationException();
            }
        };
    }

    @Test
    void theSchemaCacheIsBoundedByBytesLeastRecentlyUsedFirst() throws Exception {
        // 50 schemas of 100,000 characters (200 KB each at two bytes a character) under a 1 MiB bound: a count of
        // 10,000 alone would keep all 50 (10 MB); the bytes keep five, the most recently used, and the one in use.
        AtomicInteger asked = new AtomicInteger();
        long maxBytes = 1024 * 1024;
        RegistryCacheConfig cache = new RegistryCacheConfig(10_000, null, 100, null, maxBytes);
        SimpleMeterRegistry bytesMeters = new SimpleMeterRegistry();
        try (CachingSchemaSource bounded = new CachingSchemaSource(bigSchemas(100_000, asked), cache, bytesMeters, clock::get)) {
            for (int id = 1; id <= 50; id++) {
                bounded.byId(id);
                bounded.byId(1); // kept in use: never the least recently used
                assertThat(bounded.cachedBytes()).isLessThanOrEqualTo(maxBytes);
            }
            assertThat(bounded.cachedSchemas()).isBetween(2, 5);
            assertThat(bytesMeters.get(CachingSchemaSource.CACHED_BYTES).gauge().value()).isEqualTo(bounded.cachedBytes());
            assertThat(bytesMeters.get(CachingSchemaSource.EVICTIONS).counter().count()).isEqualTo(50 - bounded.cachedSchemas());
            assertThat(asked.get()).isEqualTo(50);
            bounded.byId(1);
            bounded.byId(50);
            assertThat(asked.get()).as("the one in use and the newest are cached").isEqualTo(50);
            bounded.byId(2);
            assertThat(asked.get()).as("an old one was evicted").isEqualTo(51);
        }
    }

    @Test
    void newIdsAreLoadedOffTheCallersThreadAtTheLookupRate() throws Exception {
        source.close();
        RegistryCacheConfig cache = RegistryCacheConfig.defaults();
        RegistryConfig config = new RegistryConfig(registry.url(), null, null, Duration.ofSeconds(5),
                RegistryConfig.DEFAULT_MAX_RESPONSE_BYTES, cache);
        // One a second, two at once; the clock is the test's, so the bucket refills only when the test says.
        source = new CachingSchemaSource(RegistryClient.create(config, meters), cache, new RegistryLookupsConfig(1, 2), meters,
                clock::get);
        int a = registry.register("a", V1);
        int b = registry.register("b", V2);
        int c = registry.register("c", SchemaType.JSON, "{}", List.of());
        int bogus = c + 1000;
        registry.misbehave(Misbehaviour.delay(Duration.ofMillis(300)));
        String caller = Thread.currentThread().getName();
        List<String> threads = new java.util.concurrent.CopyOnWriteArrayList<>();
        Runnable loadA = () -> {
            threads.add(Thread.currentThread().getName());
            try {
                source.byId(a);
            }
            catch (SchemaUnavailableException e) {
                throw new AssertionError(e);
            }
        };
        CompletableFuture<Void> first = source.loadAsync(a, loadA);
        assertThat(source.loadAsync(a, loadA)).as("a load in flight is shared").isSameAs(first);
        assertThat(first).as("the registry takes 300 ms: the caller did not wait").isNotDone();
        CompletableFuture<Void> notFound = source.loadAsync(bogus, () -> assertThatThrownBy(() -> source.byId(bogus))
                .isInstanceOf(SchemaUnavailableException.class));
        CompletableFuture<Void> overTheRate = source.loadAsync(b, () -> {
            throw new AssertionError("over the rate: not run");
        });
        first.get(5, TimeUnit.SECONDS);
        notFound.get(5, TimeUnit.SECONDS);
        assertThat(threads).hasSize(1).doesNotContain(caller);
        assertThat(source.byId(a).text()).isEqualTo(V1);
        assertThat(source.failsAtOnce(bogus)).as("the 404 is remembered").isTrue();
        assertThat(source.failsAtOnce(b)).isFalse();
        // The refused ask is told to come back when a token is there (a second); it never fails.
        overTheRate.get(5, TimeUnit.SECONDS);
        assertThat(registry.requests("schemas.ids")).isEqualTo(2);
        advance(Duration.ofSeconds(1));
        source.loadAsync(b, () -> {
            try {
                source.byId(b);
            }
            catch (SchemaUnavailableException e) {
                throw new AssertionError(e);
            }
        }).get(5, TimeUnit.SECONDS);
        assertThat(registry.requests("schemas.ids")).isEqualTo(3);
        assertThat(meters.get(NewSchemaIds.NEW_IDS).tag("outcome", "started").counter().count()).isEqualTo(3);
        assertThat(meters.get(NewSchemaIds.NEW_IDS).tag("outcome", "deferred").counter().count()).isEqualTo(1);
        // A cached id costs no token: only parsing is left.
        source.loadAsync(a, () -> { }).get(5, TimeUnit.SECONDS);
        assertThat(meters.get(NewSchemaIds.NEW_IDS).tag("outcome", "started").counter().count()).isEqualTo(3);
    }

    @Test
    void subjectChecksAreAnsweredWithoutBlockingOnceLoadedAndALookUpNotFoundIsAskedAgainAfterTheFailureTtl() throws Exception {
        int v1 = registry.register("orders-value", V1);
        int other = registry.register("other-value", V2);
        assertThat(source.cachedById(v1)).as("nothing is known before a load").isNull();
        assertThat(source.cachedLatest("orders-value")).isNull();
        assertThat(source.cachedLookUp("orders-value", v1)).isNull();
        assertThat(registry.requests()).as("asking what is known costs no request").isZero();

        source.loadLatestAsync("orders-value").get(5, TimeUnit.SECONDS);
        assertThat(source.cachedLatest("orders-value").id()).isEqualTo(v1);
        source.loadLookUpAsync("orders-value", v1).get(5, TimeUnit.SECONDS);
        assertThat(source.cachedLookUp("orders-value", v1).id()).isEqualTo(v1);
        assertThat(source.cachedById(v1).text()).as("learnt with the latest version, kept under its id").isEqualTo(V1);
        source.loadLookUpAsync("orders-value", other).get(5, TimeUnit.SECONDS);
        assertThatThrownBy(() -> source.cachedLookUp("orders-value", other)).isInstanceOfSatisfying(SchemaUnavailableException.class,
                e -> assertThat(e.notFound()).isTrue());
        assertThat(registry.requests("lookup")).isEqualTo(2);
        assertThat(registry.requests("schemas.ids")).as("only the other schema was fetched by id, to be looked up").isEqualTo(1);

        registry.register("orders-value", V2);
        assertThatThrownBy(() -> source.cachedLookUp("orders-value", other)).as("remembered for failureTtl")
                .isInstanceOf(SchemaUnavailableException.class);
        advance(RegistryCacheConfig.DEFAULT_FAILURE_TTL);
        assertThat(source.cachedLookUp("orders-value", other)).as("forgotten: ask again").isNull();
        source.loadLookUpAsync("orders-value", other).get(5, TimeUnit.SECONDS);
        assertThat(source.cachedLookUp("orders-value", other).id()).isEqualTo(other);
        assertThat(source.cachedLatest("orders-value")).as("the latest is due for a refresh").isNull();
        source.loadLatestAsync("orders-value").get(5, TimeUnit.SECONDS);
        assertThat(source.cachedLatest("orders-value").id()).isEqualTo(other);

        registry.stop();
        advance(RegistryCacheConfig.DEFAULT_LATEST_REFRESH);
        source.loadLatestAsync("orders-value").get(5, TimeUnit.SECONDS);
        assertThat(source.cachedLatest("orders-value").id()).as("the registry is down: the last answer serves").isEqualTo(other);
        assertThatThrownBy(() -> source.cachedById(other + 1000)).as("nothing new is asked while it is unreachable")
                .isInstanceOf(RegistryUnreachableException.class);
    }

    @Test
    void anotherOwnersMetersAndThreadsCarryItsNameAndTag() throws Exception {
        int id = registry.register("s", V1);
        SimpleMeterRegistry filterMeters = new SimpleMeterRegistry();
        try (CachingSchemaSource filter = CachingSchemaSource.create(RegistryConfig.of(registry.url()), filterMeters,
                RegistryMeters.filter("validate"))) {
            List<String> threads = new java.util.concurrent.CopyOnWriteArrayList<>();
            filter.loadAsync(id, () -> {
                threads.add(Thread.currentThread().getName());
                try {
                    filter.byId(id);
                }
                catch (SchemaUnavailableException e) {
                    throw new AssertionError(e);
                }
            }).get(5, TimeUnit.SECONDS);
            assertThat(threads).containsExactly("sluice-filter-schema-lookup");
            assertThat(filterMeters.get("sluice.filter.registry.lookups").tag("filter", "validate").tag("result", "miss").counter().count())
                    .isEqualTo(1);
            assertThat(filterMeters.get("sluice.filter.registry.requests").tag("filter", "validate").tag("outcome", "ok").counter().count())
                    .isEqualTo(1);
            assertThat(filterMeters.get("sluice.filter.registry.cached.schemas").tag("filter", "validate").gauge().value()).isEqualTo(1);
            assertThat(filterMeters.find("sluice.bridge.registry.lookups").counters()).isEmpty();
        }
    }
}
