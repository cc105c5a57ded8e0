package io.sluice.proxy.filter;

/**
 * A filter told when its client connection opens and when it has closed: what an audit trail or per-connection
 * accounting needs and no request or response shows (a connection that sends nothing, or is closed by a filter, the
 * client or the proxy). Implement it beside {@link RequestFilter} and {@link ResponseFilter} (or the typed ones).
 *
 * <p>Each runs once per connection, on its event loop: {@code onConnectionOpened} when the client's TCP connection is
 * established, before any request reaches any filter (TLS may still be handshaking: {@link FilterContext#clientTlsContext}
 * is empty then); {@code onConnectionClosed} after the socket has closed, whatever closed it, when no more message
 * reaches the filter and {@link FilterContext#bytesFromClient} and {@link FilterContext#bytesToClient} are final. It
 * follows {@code onConnectionOpened} only. A callback that throws is logged and counted in
 * {@code sluice_filter_errors_total{filter}}; on open it also closes the connection. Neither may block.</p>
 */
public interface ConnectionFilter extends Filter {

    /** The client connection is open; no request has been read yet. */
    default void onConnectionOpened(FilterContext context) {
    }

    /** The client connection has closed. */
    default void onConnectionClosed(FilterContext context) {
    }
}
