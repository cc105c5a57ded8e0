package io.sluice.proxy.codec;

import io.sluice.proxy.filter.ResponseHook;

/**
 * A filter's hook on the response to a request it forwarded; {@code owner} is the handler of the filter that attached
 * it, where it runs on the response path.
 */
public record AttachedHook(Object owner, ResponseHook hook) {
}
