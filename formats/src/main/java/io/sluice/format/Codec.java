package io.sluice.format;

import java.util.concurrent.CompletableFuture;

import com.fasterxml.jackson.databind.JsonNode;

/**
 * One topic's key or value format, both ways: the bytes of a record as the JSON clients receive (docs/bridge-formats.md
 * gives the mapping of each format), and the JSON a client publishes as the bytes to write. Implementations are
 * thread-safe.
 */
public interface Codec {

    /** The record bytes as a JSON tree. */
    JsonNode decode(String topic, byte[] bytes) throws DecodeException;

    /** The JSON a client published, as the record bytes; nothing is written when this throws. */
    byte[] encode(String topic, JsonNode value) throws EncodeException;

    /**
     * Null when {@link #decode} of these bytes would not wait for the schema registry; otherwise a future that completes
     * when it is worth asking again: the schema the bytes name is being looked up off the caller's thread, or the
     * node's rate of new-id lookups is used up. Never blocks, never completes exceptionally. Codecs without a registry
     * always answer null.
     */
    default CompletableFuture<Void> pending(byte[] bytes) {
        return null;
    }

    /**
     * A value of the schema a publish into {@code topic} is written with (the local schema, or the latest of the topic's
     * subject) with every field present, as {@link #decode} would give it: what masks are checked against when the
     * configuration is loaded (docs/masking.md), encoded back with {@link #encode}. Null when the format has no schema
     * to draw one from (json, string, bytes, JSON Schema). May ask the registry: never on an event loop.
     */
    default JsonNode sample(String topic) throws SchemaLookupException {
        return null;
    }

    /** A change to a decoded value: returns the new value (it may change its argument, which is the caller's copy). */
    @FunctionalInterface
    interface ValueChange {
        JsonNode apply(JsonNode value) throws EncodeException;
    }

    /**
     * The record bytes with their decoded value changed: {@code bytes} decoded as {@link #decode} does, {@code change}
     * applied, and the result written with the same schema and the same header as {@code bytes} (schema id, Protobuf
     * message indexes), so that every deserializer that read the original reads the result. For the proxy's field
     * masking; never waits for the schema registry.
     *
     * @throws SchemaPendingException when the schema {@code bytes} name is not fetched yet (asked for off the caller's
     *                                thread; try again once its future completes)
     * @throws DecodeException        when {@code bytes} do not decode (an outage of the registry is a
     *                                {@link DecodeOutageException})
     * @throws EncodeException        when {@code change} refuses the value or its result does not fit the schema
     */
    default byte[] rewrite(String topic, byte[] bytes, ValueChange change)
            throws DecodeException, EncodeException, SchemaPendingException {
        throw new EncodeException("/: this format's records cannot be rewritten (masks need json, avro, protobuf or json-schema)");
    }
}
