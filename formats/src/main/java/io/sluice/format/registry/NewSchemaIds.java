package io.sluice.format.registry;

import java.util.Map;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.sluice.rate.TokenBucket;

/**
 * Loads schema ids a node has not seen on threads of its own, at most {@link RegistryLookupsConfig#perSecond()} a
 * second, so that neither the Kafka reader (which only asks whether an id is ready and waits without blocking) nor the
 * registry pays for a producer writing fresh bogus ids. The proxy's RecordValidation loads the subject checks it needs
 * (a subject's latest version, a schema looked up under a subject) the same way, from its event loops. One load per key
 * at a time: callers asking for a key already being loaded share its future.
 *
 * <p>Meter: {@code sluice.bridge.registry.new.ids{outcome=started|deferred}} (another user's prefix and tags from its
 * {@link RegistryMeters}): loads started, and asks refused because the rate (or the lookup threads' queue) was used up;
 * a refused caller is told when to ask again, its records wait.
 */
final class NewSchemaIds implements AutoCloseable {

    /** The bridge's name of the meter ({@link RegistryMeters#BRIDGE}). */
    static final String NEW_IDS = "sluice.bridge.registry.new.ids";
    /**
     * Lookup threads (decision): requests end within the registry's timeout; four in parallel keep an honest node's
     * start-up short, and the rate, not the threads, is what bounds the registry's load.
     */
    static final int THREADS = 4;
    /** Loads waiting for a thread; beyond them an ask is deferred like one over the rate. */
    static final int QUEUE = 256;
    /** How soon a caller refused for a full queue asks again. */
    static final long QUEUE_FULL_RETRY_MILLIS = 100;

    private final ThreadPoolExecutor executor;
    private final TokenBucket bucket;
    private final LongSupplier nanoClock;
    private final Map<Object, CompletableFuture<Void>> inFlight = new ConcurrentHashMap<>();
    private final Counter started;
    private final Counter deferred;

    NewSchemaIds(RegistryLookupsConfig config, MeterRegistry meters, LongSupplier nanoClock) {
        this(config, meters, nanoClock, RegistryMeters.BRIDGE);
    }

    NewSchemaIds(RegistryLookupsConfig config, MeterRegistry meters, LongSupplier nanoClock, RegistryMeters owner) {
        this.nanoClock = nanoClock;
        this.bucket = new TokenBucket(config.perSecond(), config.burst(), nanoClock.getAsLong());
        this.executor = new ThreadPoolExecutor(THREADS, THREADS, 30, TimeUnit.SECONDS, new ArrayBlockingQueue<>(QUEUE), r -> {
            Thread t = new Thread(r, "sluice-" + owner.owner() + "-schema-lookup");
            t.setDaemon(true);
            return t;
        });
        executor.allowCoreThreadTimeOut(true);
        started = Counter.builder(owner.name("new.ids")).tags(owner.tags()).tag("outcome", "started")
                .description("Lookups of schema ids the node had not seen, started off the reader thread").register(meters);
        deferred = Counter.builder(owner.name("new.ids")).tags(owner.tags()).tag("outcome", "deferred")
                .description("Lookups of new schema ids put off because schemaRegistry.lookups was used up").register(meters);
    }

    /**
     * Runs {@code load} on a lookup thread, taking one of the rate's tokens unless {@code free} (the registry will not
     * be asked: only parsing is left). The future completes once it has run, whatever its outcome (the caches
     * remember it), or, when refused, once it is worth asking again; it never completes exceptionally.
     */
    CompletableFuture<Void> load(Object key, boolean free, Runnable load) {
        CompletableFuture<Void> running = inFlight.get(key);
        if (running != null) {
            return running;
        }
        long wait = free ? 0 : take();
        if (wait > 0) {
            deferred.increment();
            return new CompletableFuture<Void>().completeOnTimeout(null, wait, TimeUnit.MILLISECONDS);
        }
        CompletableFuture<Void> mine = new CompletableFuture<>();
        running = inFlight.putIfAbsent(key, mine);
        if (running != null) {
            return running;
        }
        try {
            executor.execute(() -> {
                try {
                    load.run();
                }
                finally {
                    inFlight.remove(key, mine);
                    mine.complete(null);
                }
            });
        }
        catch (RejectedExecutionException e) {
            inFlight.remove(key, mine);
            deferred.increment();
            return new CompletableFuture<Void>().completeOnTimeout(null, QUEUE_FULL_RETRY_MILLIS, TimeUnit.MILLISECONDS);
        }
        if (!free) {
            started.increment();
        }
        return mine;
    }

    private synchronized long take() {
        return bucket.take(nanoClock.getAsLong());
    }

    @Override
    public void close() {
        executor.shutdownNow();
    }
}
