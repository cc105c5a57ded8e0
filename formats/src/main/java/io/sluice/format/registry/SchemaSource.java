package io.sluice.format.registry;

import java.util.concurrent.CompletableFuture;

/**
 * What the codecs need from a schema registry. Implementations cache: a schema id is immutable, so it is fetched at
 * most once while it stays in the cache, and a failed lookup is remembered for a while so that a record naming a bogus
 * id costs one registry call per such period, not one per record. Calls may block their thread up to the configured
 * timeout; they are made from publishing connections' handlers and recoveries' log readers. The Kafka reader does not
 * block on them: before decoding it asks {@link #failsAtOnce} and has new ids loaded by {@link #loadAsync}.
 */
public interface SchemaSource {

    /** The schema with this global id. */
    RegisteredSchema byId(int id) throws SchemaUnavailableException;

    /** The latest version registered under a subject (what a publish serializes against). */
    RegisteredSchema latest(String subject) throws SchemaUnavailableException;

    /** One version of a subject (how references are resolved). */
    RegisteredSchema bySubjectVersion(String subject, int version) throws SchemaUnavailableException;

    /** True when {@link #byId} would throw without asking the registry (a remembered failure, an outage period). */
    default boolean failsAtOnce(int id) {
        return false;
    }

    /**
     * Runs {@code load}, which calls {@link #byId} for {@code id} (and resolves and parses what it returns), off the
     * caller's thread and within the node's rate of new-id lookups. The future completes once it ran (its outcome is
     * then remembered by the caches), or, over the rate, when it is worth asking again; never exceptionally. Null: this
     * source has no lookup threads, and the caller may call {@link #byId} itself.
     */
    default CompletableFuture<Void> loadAsync(int id, Runnable load) {
        return null;
    }
}
