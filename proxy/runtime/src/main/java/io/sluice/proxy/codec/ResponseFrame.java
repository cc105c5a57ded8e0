package io.sluice.proxy.codec;

/** One Kafka response travelling towards the client, as wire bytes or decoded. */
public sealed interface ResponseFrame permits OpaqueResponse, DecodedResponse {

    /** The client's correlation id. */
    int correlationId();

    void release();
}
