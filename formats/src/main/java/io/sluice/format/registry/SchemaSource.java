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

    /**
     * The version of {@code subject} whose schema is {@code schema}, with the id the registry gives it there: how "is the
     * schema a record names registered under this subject" is asked (the proxy's RecordValidation). Not found when the
     * subject has no such version. Sources that cannot ask say so as an unavailable schema.
     */
    default RegisteredSchema lookUp(String subject, RegisteredSchema schema) throws SchemaUnavailableException {
        throw new SchemaUnavailableException("this schema source cannot look a schema up under a subject", false);
    }

    /**
     * The schema with this id if it is known without asking the registry (returned), or a failure remembered for it
     * (thrown); null when only the registry can tell. Never blocks. Sources without a cache know nothing in advance.
     */
    default RegisteredSchema cachedById(int id) throws SchemaUnavailableException {
        return null;
    }

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
