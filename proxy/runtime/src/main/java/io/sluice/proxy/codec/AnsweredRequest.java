package io.sluice.proxy.codec;

import org.apache.kafka.common.protocol.ApiKeys;

/**
 * A request the decoder answers itself (an ApiVersions of a version it does not speak), passed on to the response
 * sequencer in the request's place: the answer must leave after the responses to the requests read before it.
 */
public record AnsweredRequest(ApiKeys apiKey, int correlationId, ResponseFrame response) {
}
