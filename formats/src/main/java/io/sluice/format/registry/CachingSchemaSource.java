package io.sluice.format.registry;

import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.function.LongSupplier;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.sluice.logging.RateLimitedByCause;

/**
 * A {@link SchemaSource} in front of the registry that asks it as little as possible, because schema ids come from
 * record bytes (anyone who produces picks them) and every node of the bridge asks for itself. The Kafka reader never
 * waits on it: it asks {@link #failsAtOnce} and has new ids loaded by {@link #loadAsync}; publishes and recoveries call
 * it on their own threads and may block up to the timeout.
 *
 * <ul>
 * <li>A schema by id, and a subject's version, never change: kept until {@link RegistryCacheConfig#maxSchemas()} or
 * {@link RegistryCacheConfig#maxBytes()} pushes out the least recently used. A schema learnt by subject is also kept
 * under its id.</li>
 * <li>Ids not seen yet are loaded off the Kafka reader's thread, at the rate of {@link RegistryLookupsConfig}
 * ({@link #loadAsync}, {@link NewSchemaIds}).</li>
 * <li>A subject's latest version is used for {@link RegistryCacheConfig#latestRefresh()}, then asked for again; if the
 * registry cannot answer (anything but "not found"), the last answer keeps serving, as long as the outage lasts.</li>
 * <li>A schema looked up under a subject ({@link #lookUp}) is kept like a schema by id: found, it stays found (ids and
 * versions never change); not found is a failure, remembered for {@code failureTtl} and then asked again, so a schema
 * registered under the subject later is found within that period.</li>
 * <li>Concurrent lookups of one key share one request.</li>
 * <li>A failed lookup is remembered for {@link RegistryCacheConfig#failureTtl()} (at most
 * {@link RegistryCacheConfig#maxFailures()} of them, oldest dropped first), so a record naming a bogus id costs one
 * request per period, not one per record. When the registry is unreachable (refused connection, TLS failure, timeout),
 * nothing new is asked for the same period: otherwise every record with an unknown id would wait out the timeout.</li>
 * </ul>
 *
 * <p>For callers that must never block (the proxy's event loops), {@link #cachedById}, {@link #cachedLatest} and
 * {@link #cachedLookUp} answer from what is known, or say that only the registry can tell; {@link #loadAsync},
 * {@link #loadLatestAsync} and {@link #loadLookUpAsync} then ask it on the lookup threads, within the rate.
 *
 * <p>Meters (the bridge's names; another user's prefix and tags come from its {@link RegistryMeters}):
 * {@code sluice.bridge.registry.lookups{result=hit|miss|shared|stale|failed}} (failed: answered from a
 * remembered failure or the unreachable period, without a request), {@code sluice.bridge.registry.cached.schemas}, {@code sluice.bridge.registry.cached.bytes},
 * {@code sluice.bridge.registry.remembered.failures} and {@code sluice.bridge.registry.evictions}.
 */
public final class CachingSchemaSource implements SchemaSource, AutoCloseable {

    // The bridge's meter names (RegistryMeters.BRIDGE), for its tests.
    static final String LOOKUPS = "sluice.bridge.registry.lookups";
    static final String CACHED = "sluice.bridge.registry.cached.schemas";
    static final String CACHED_BYTES = "sluice.bridge.registry.cached.bytes";
    static final String FAILURES = "sluice.bridge.registry.remembered.failures";
    static final String EVICTIONS = "sluice.bridge.registry.evictions";
    private static final Logger LOG = LoggerFactory.getLogger(CachingSchemaSource.class);

    private sealed interface Key permits ById, ByVersion, Latest, Under {
    }

    private record ById(int id) implements Key {
    }

    private record ByVersion(String subject, int version) implements Key {
    }

    private record Latest(String subject) implements Key {
    }

    /** A schema looked up under a subject; equal by subject and id (the schema is what the id names). */
    private record Under(String subject, int id, RegisteredSchema schema) implements Key {
        @Override
        public boolean equals(Object o) {
            return o instanceof Under u && u.id == id && u.subject.equals(subject);
        }

        @Override
        public int hashCode() {
            return 31 * subject.hashCode() + id;
        }
    }

    private record Entry(RegisteredSchema schema, long fetchedAt, long bytes) {
        Entry(RegisteredSchema schema, long fetchedAt) {
            this(schema, fetchedAt, weight(schema));
        }
    }

    private record Failure(SchemaUnavailableException cause, long expiresAt) {
    }

    private final SchemaSource registry;
    private final RegistryCacheConfig config;
    private final LongSupplier nanoClock;
    private final long failureTtlNanos;
    private final long latestRefreshNanos;
    private final Object lock = new Object();
    // Guarded by lock. Access order: a get moves the entry to the end, the eldest is the least recently used.
    private final LinkedHashMap<Key, Entry> schemas = new LinkedHashMap<>(16, 0.75f, true);
    // Guarded by lock: the weight of the entries of schemas.
    private long cachedBytes;
    private final NewSchemaIds newIds;
    // Guarded by lock. Insertion order with one TTL: the eldest expires first.
    private final LinkedHashMap<Key, Failure> failures = new LinkedHashMap<>();
    private final Map<Key, CompletableFuture<RegisteredSchema>> inFlight = new ConcurrentHashMap<>();
    private volatile Failure unreachable;
    private final RateLimitedByCause failureLog = new RateLimitedByCause(LOG);
    private final Counter hits;
    private final Counter misses;
    private final Counter shared;
    private final Counter stale;
    private final Counter failed;
    private final Counter evictions;

    /**
     * @param registry usually a {@link RegistryClient}; closed with this source if it is {@link AutoCloseable}
     * @param config validated by the caller ({@link RegistryConfig#validate})
     */
    public static CachingSchemaSource create(SchemaSource registry, RegistryCacheConfig config, MeterRegistry meters) {
        return create(registry, config, RegistryLookupsConfig.defaults(), meters);
    }

    public static CachingSchemaSource create(SchemaSource registry, RegistryCacheConfig config, RegistryLookupsConfig lookups,
                                             MeterRegistry meters) {
        return new CachingSchemaSource(registry, config, lookups, meters, System::nanoTime, RegistryMeters.BRIDGE);
    }

    /** The client and its cache for a bridge's {@code schemaRegistry} section. */
    public static CachingSchemaSource create(RegistryConfig config, MeterRegistry meters) {
        return create(config, meters, RegistryMeters.BRIDGE);
    }

    /** The client and its cache for a {@code schemaRegistry} section, with meters and threads named for {@code owner}. */
    public static CachingSchemaSource create(RegistryConfig config, MeterRegistry meters, RegistryMeters owner) {
        return new CachingSchemaSource(RegistryClient.create(config, meters, owner), config.cache(), config.lookups(), meters,
                System::nanoTime, owner);
    }

    CachingSchemaSource(SchemaSource registry, RegistryCacheConfig config, MeterRegistry meters, LongSupplier nanoClock) {
        this(registry, config, RegistryLookupsConfig.defaults(), meters, nanoClock);
    }

    CachingSchemaSource(SchemaSource registry, RegistryCacheConfig config, RegistryLookupsConfig lookups, MeterRegistry meters,
                        LongSupplier nanoClock) {
        this(registry, config, lookups, meters, nanoClock, RegistryMeters.BRIDGE);
    }

    CachingSchemaSource(SchemaSource registry, RegistryCacheConfig config, RegistryLookupsConfig lookups, MeterRegistry meters,
                        LongSupplier nanoClock, RegistryMeters owner) {
        this.registry = Objects.requireNonNull(registry, "registry");
        this.config = Objects.requireNonNull(config, "config");
        this.nanoClock = nanoClock;
        this.failureTtlNanos = config.failureTtl().toNanos();
        this.latestRefreshNanos = config.latestRefresh().toNanos();
        hits = lookups(meters, owner, "hit");
        misses = lookups(meters, owner, "miss");
        shared = lookups(meters, owner, "shared");
        stale = lookups(meters, owner, "stale");
        failed = lookups(meters, owner, "failed");
        evictions = Counter.builder(owner.name("evictions")).tags(owner.tags())
                .description("Schemas dropped from the registry cache to stay within cache.maxSchemas and cache.maxBytes")
                .register(meters);
        Gauge.builder(owner.name("cached.bytes"), this, CachingSchemaSource::cachedBytes).tags(owner.tags())
                .description("The weight of the schemas held by the registry cache (cache.maxBytes bounds it)").register(meters);
        this.newIds = new NewSchemaIds(lookups, meters, nanoClock, owner);
        Gauge.builder(owner.name("cached.schemas"), this, CachingSchemaSource::cachedSchemas).tags(owner.tags())
                .description("Schemas held by the registry cache").register(meters);
        Gauge.builder(owner.name("remembered.failures"), this, CachingSchemaSource::rememberedFailures).tags(owner.tags())
                .description("Failed registry lookups remembered for cache.failureTtl").register(meters);
    }

    private static Counter lookups(MeterRegistry meters, RegistryMeters owner, String result) {
        return Counter.builder(owner.name("lookups")).tags(owner.tags()).tag("result", result).description("Schema lookups, by how they were answered")
                .register(meters);
    }

    @Override
    public RegisteredSchema byId(int id) throws SchemaUnavailableException {
        return lookup(new ById(id));
    }

    @Override
    public RegisteredSchema latest(String subject) throws SchemaUnavailableException {
        return lookup(new Latest(Objects.requireNonNull(subject, "subject")));
    }

    @Override
    public RegisteredSchema bySubjectVersion(String subject, int version) throws SchemaUnavailableException {
        return lookup(new ByVersion(Objects.requireNonNull(subject, "subject"), version));
    }

    @Override
    public RegisteredSchema lookUp(String subject, RegisteredSchema schema) throws SchemaUnavailableException {
        return lookup(new Under(Objects.requireNonNull(subject, "subject"), schema.id(), schema));
    }

    // ---- without blocking: what is known, and loads on the lookup threads ----

    /**
     * The schema with this id if the cache holds it; the remembered failure (or the unreachable period's) thrown if it
     * has one; null when only the registry can tell ({@link #loadAsync}). Never blocks.
     */
    @Override
    public RegisteredSchema cachedById(int id) throws SchemaUnavailableException {
        return cached(new ById(id));
    }

    /**
     * The subject's latest version while it is fresh (or, while the registry fails to answer, the last one known); the
     * remembered failure thrown ("not found" among them); null when the registry must be asked ({@link #loadLatestAsync}).
     * Never blocks.
     */
    public RegisteredSchema cachedLatest(String subject) throws SchemaUnavailableException {
        return cached(new Latest(Objects.requireNonNull(subject, "subject")));
    }

    /**
     * The version of {@code subject} holding schema {@code id} as {@link #lookUp} found it; its remembered failure
     * thrown ("not found": the subject has no version with this schema); null when the registry must be asked
     * ({@link #loadLookUpAsync}). Never blocks.
     */
    public RegisteredSchema cachedLookUp(String subject, int id) throws SchemaUnavailableException {
        return cached(new Under(Objects.requireNonNull(subject, "subject"), id, null));
    }

    /** Asks for the subject's latest version on a lookup thread, within the rate; see {@link #loadAsync}. */
    public CompletableFuture<Void> loadLatestAsync(String subject) {
        return newIds.load(new Latest(subject), false, () -> quietly(() -> latest(subject)));
    }

    /**
     * Looks schema {@code id} up under {@code subject} on a lookup thread, within the rate (fetching the schema by id
     * first if it is not cached); see {@link #loadAsync}.
     */
    public CompletableFuture<Void> loadLookUpAsync(String subject, int id) {
        return newIds.load(new Under(subject, id, null), false, () -> quietly(() -> lookUp(subject, byId(id))));
    }

    private interface Lookup {
        RegisteredSchema run() throws SchemaUnavailableException;
    }

    /** A load whose outcome the cache remembers, schema or failure: nothing for the lookup thread to do with it. */
    private static void quietly(Lookup lookup) {
        try {
            lookup.run();
        }
        catch (SchemaUnavailableException e) {
            // Remembered (or, with failureTtl 0, asked again next time).
        }
    }

    /** What {@link #lookup} would answer without a request, or null when it would make one. */
    private RegisteredSchema cached(Key key) throws SchemaUnavailableException {
        long now = nanoClock.getAsLong();
        Entry cached;
        Failure remembered;
        synchronized (lock) {
            cached = schemas.get(key);
            if (cached != null && fresh(key, cached, now)) {
                hits.increment();
                return cached.schema();
            }
            remembered = rememberedFailure(key, now);
        }
        if (remembered == null) {
            Failure down = unreachable;
            if (down != null && now - down.expiresAt() < 0) {
                remembered = down;
            }
        }
        if (remembered == null) {
            return null;
        }
        if (cached != null && !remembered.cause().notFound()) {
            stale.increment();
            return cached.schema();
        }
        failed.increment();
        throw again(remembered.cause());
    }

    @Override
    public boolean failsAtOnce(int id) {
        Key key = new ById(id);
        long now = nanoClock.getAsLong();
        synchronized (lock) {
            if (schemas.containsKey(key)) {
                return false;
            }
            if (rememberedFailure(key, now) != null) {
                return true;
            }
        }
        Failure down = unreachable;
        return down != null && now - down.expiresAt() < 0;
    }

    @Override
    public CompletableFuture<Void> loadAsync(int id, Runnable load) {
        boolean cached;
        synchronized (lock) {
            cached = schemas.containsKey(new ById(id));
        }
        // Cached: only parsing is left, which costs the registry nothing and so no token of the rate.
        return newIds.load(new ById(id), cached, load);
    }

    /**
     * What an entry costs the heap, near enough: its text at two bytes a character (Java strings use one for Latin-1
     * text), its references' names likewise, and a fixed overhead for the objects around them.
     */
    static long weight(RegisteredSchema schema) {
        long bytes = 2L * schema.text().length() + 128;
        for (SchemaReference reference : schema.references()) {
            bytes += 2L * (reference.name().length() + reference.subject().length()) + 64;
        }
        return bytes;
    }

    private RegisteredSchema lookup(Key key) throws SchemaUnavailableException {
        RegisteredSchema known = cached(key);
        if (known != null) {
            return known;
        }
        long now = nanoClock.getAsLong();
        Entry cached;
        synchronized (lock) {
            // A subject's latest due for a refresh: it serves again if the registry cannot answer.
            cached = schemas.get(key);
        }
        CompletableFuture<RegisteredSchema> mine = new CompletableFuture<>();
        CompletableFuture<RegisteredSchema> leader = inFlight.putIfAbsent(key, mine);
        if (leader != null) {
            shared.increment();
            return await(leader, cached);
        }
        misses.increment();
        try {
            RegisteredSchema schema = fetch(key);
            store(key, schema, now);
            mine.complete(schema);
            return schema;
        }
        catch (SchemaUnavailableException e) {
            remember(key, e);
            mine.completeExceptionally(e);
            if (cached != null && !e.notFound()) {
                stale.increment();
                return cached.schema();
            }
            throw e;
        }
        catch (RuntimeException | Error e) {
            mine.completeExceptionally(e);
            throw e;
        }
        finally {
            inFlight.remove(key, mine);
        }
    }

    private boolean fresh(Key key, Entry entry, long now) {
        return !(key instanceof Latest) || now - entry.fetchedAt() < latestRefreshNanos;
    }

    private RegisteredSchema fetch(Key key) throws SchemaUnavailableException {
        if (key instanceof ById byId) {
            return registry.byId(byId.id());
        }
        if (key instanceof ByVersion byVersion) {
            return registry.bySubjectVersion(byVersion.subject(), byVersion.version());
        }
        if (key instanceof Under under) {
            return registry.lookUp(under.subject(), under.schema());
        }
        return registry.latest(((Latest) key).subject());
    }

    /** Another thread's request for the same key: its answer, or its failure (or the stale latest, as it would). */
    private RegisteredSchema await(CompletableFuture<RegisteredSchema> leader, Entry cached) throws SchemaUnavailableException {
        try {
            return leader.get();
        }
        catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new RegistryUnreachableException("interrupted while waiting for the schema registry", e);
        }
        catch (ExecutionException e) {
            if (e.getCause() instanceof SchemaUnavailableException unavailable) {
                if (cached != null && !unavailable.notFound()) {
                    stale.increment();
                    return cached.schema();
                }
                throw again(unavailable);
            }
            if (e.getCause() instanceof RuntimeException runtime) {
                throw runtime;
            }
            throw new IllegalStateException(e.getCause());
        }
    }

    private void store(Key key, RegisteredSchema schema, long now) {
        synchronized (lock) {
            failures.remove(key);
            put(key, new Entry(schema, now));
            if (!(key instanceof ById) && !schemas.containsKey(new ById(schema.id()))) {
                // Records written with this schema carry its id: spare the reader a request.
                put(new ById(schema.id()), new Entry(schema, now));
            }
            Iterator<Map.Entry<Key, Entry>> eldest = schemas.entrySet().iterator();
            while ((schemas.size() > config.maxSchemas() || cachedBytes > config.maxBytes()) && eldest.hasNext()) {
                cachedBytes -= eldest.next().getValue().bytes();
                eldest.remove();
                evictions.increment();
            }
        }
    }

    /** Guarded by lock. */
    private void put(Key key, Entry entry) {
        Entry old = schemas.put(key, entry);
        cachedBytes += entry.bytes() - (old == null ? 0 : old.bytes());
    }

    private void remember(Key key, SchemaUnavailableException e) {
        if (!e.notFound()) {
            failureLog.log(e, "Schema registry: {}", e.getMessage());
        }
        if (failureTtlNanos <= 0) {
            return;
        }
        long expiresAt = nanoClock.getAsLong() + failureTtlNanos;
        if (e instanceof RegistryUnreachableException) {
            unreachable = new Failure(e, expiresAt);
        }
        synchronized (lock) {
            failures.remove(key);
            failures.put(key, new Failure(e, expiresAt));
            Iterator<Failure> eldest = failures.values().iterator();
            while (failures.size() > config.maxFailures() && eldest.hasNext()) {
                eldest.next();
                eldest.remove();
            }
        }
    }

    /** Guarded by lock. Drops expired failures from the old end while looking. */
    private Failure rememberedFailure(Key key, long now) {
        Iterator<Failure> eldest = failures.values().iterator();
        while (eldest.hasNext()) {
            if (now - eldest.next().expiresAt() >= 0) {
                eldest.remove();
            }
            else {
                break;
            }
        }
        return failures.get(key);
    }

    /** The remembered failure, as a new exception thrown from here, with the original as its cause. */
    private static SchemaUnavailableException again(SchemaUnavailableException cause) {
        if (cause instanceof RegistryUnreachableException) {
            return new RegistryUnreachableException(cause.getMessage(), cause);
        }
        return new SchemaUnavailableException(cause.getMessage(), cause.notFound(), cause);
    }

    int cachedSchemas() {
        synchronized (lock) {
            return schemas.size();
        }
    }

    long cachedBytes() {
        synchronized (lock) {
            return cachedBytes;
        }
    }

    int rememberedFailures() {
        synchronized (lock) {
            return failures.size();
        }
    }

    @Override
    public void close() {
        newIds.close();
        if (registry instanceof AutoCloseable closeable) {
            try {
                closeable.close();
            }
            catch (Exception e) {
                LOG.warn("Closing the schema registry client failed: {}", e.toString());
            }
        }
    }

    @Override
    public String toString() {
        return "CachingSchemaSource[" + registry + ", " + cachedSchemas() + " schemas]";
    }
}
