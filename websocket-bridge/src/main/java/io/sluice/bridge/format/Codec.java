package io.sluice.bridge.format;

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
}
