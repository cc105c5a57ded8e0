package io.sluice.bridge.format.registry;

/**
 * What the codecs need from a schema registry. Implementations cache: a schema id is immutable, so it is fetched at
 * most once while it stays in the cache, and a failed lookup is remembered for a while so that a record naming a bogus
 * id costs one registry call per such period, not one per record. Calls may block their thread up to the configured
 * timeout; they are made from the bridge's Kafka reader thread (decoding) and from publishing connections' handlers.
 */
public interface SchemaSource {

    /** The schema with this global id. */
    RegisteredSchema byId(int id) throws SchemaUnavailableException;

    /** The latest version registered under a subject (what a publish serializes against). */
    RegisteredSchema latest(String subject) throws SchemaUnavailableException;

    /** One version of a subject (how references are resolved). */
    RegisteredSchema bySubjectVersion(String subject, int version) throws SchemaUnavailableException;
}
