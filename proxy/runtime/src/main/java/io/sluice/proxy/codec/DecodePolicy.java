package io.sluice.proxy.codec;

import org.apache.kafka.common.protocol.ApiKeys;

/** Decides which requests and responses are worth decoding: those some filter on the connection handles. */
public interface DecodePolicy {

    boolean decodeRequest(ApiKeys apiKey, short apiVersion);

    boolean decodeResponse(ApiKeys apiKey, short apiVersion);
}
