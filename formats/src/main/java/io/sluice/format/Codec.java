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
}
