package io.sluice.proxy.codec;

import org.apache.kafka.common.protocol.ApiKeys;

/**
 * One Kafka request travelling through the proxy, either still as its wire bytes ({@link OpaqueRequest})
 * or decoded because some filter asked for it ({@link DecodedRequest}).
 */
public sealed interface RequestFrame permits OpaqueRequest, DecodedRequest {

    ApiKeys apiKey();

    short apiVersion();

    /** The client's correlation id (the proxy swaps in its own only on the upstream wire). */
    int correlationId();

    /** False for requests the broker never answers (Produce with acks=0). */
    boolean hasResponse();

    /** Releases any buffer the frame holds; safe to call more than once. */
    void release();
}
