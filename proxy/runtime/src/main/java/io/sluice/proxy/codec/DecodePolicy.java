package io.sluice.proxy.codec;

import org.apache.kafka.common.protocol.ApiKeys;

/** Decides which requests and responses are worth decoding: those some filter on the connection handles. */
public interface DecodePolicy {

    boolean decodeRequest(ApiKeys apiKey, short apiVersion);

    boolean decodeResponse(ApiKeys apiKey, short apiVersion);

    /**
     * Whether a response is decoded only because it may carry leader hints for the proxy to rewrite (no filter but the
     * proxy's own address rewriting handles it): then one without hints goes to the client as received.
     */
    default boolean decodeResponseOnlyForLeaderHints(ApiKeys apiKey, short apiVersion) {
        return false;
    }
}
