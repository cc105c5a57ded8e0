package io.sluice.proxy.codec;

import java.util.concurrent.CompletableFuture;

import org.apache.kafka.common.protocol.ApiMessage;

/**
 * Marks a request a filter sent on its own: its response goes back to {@code origin} (the sending filter's
 * handler) through {@code response}, never to the client.
 */
public record OutOfBand(Object origin, CompletableFuture<ApiMessage> response) {
}
