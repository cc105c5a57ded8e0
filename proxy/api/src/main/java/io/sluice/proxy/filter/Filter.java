package io.sluice.proxy.filter;

/**
 * Marker for filter plugins. A filter implements {@link RequestFilter}, {@link ResponseFilter} or both.
 *
 * <p>One instance is created per client connection, and every callback of that instance runs on the
 * connection's event loop, so a filter may keep per-connection state in plain fields.</p>
 */
public interface Filter {
}
