package io.sluice.proxy.codec;

/**
 * Written towards the client in place of a response when a filter drops a request that expected one, so
 * the response sequencer stops waiting for it.
 */
public record RequestDropped(int correlationId) {
}
