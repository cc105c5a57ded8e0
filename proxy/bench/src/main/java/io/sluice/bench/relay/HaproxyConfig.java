package io.sluice.bench.relay;

import java.util.List;

/**
 * An haproxy configuration for a plain TCP relay: one frontend per broker port, each forwarding every connection's
 * bytes to its broker untouched ({@code mode tcp}: no parsing, no buffering beyond haproxy's own socket buffers).
 * What a Kafka proxy would cost if it did nothing but move bytes.
 */
public final class HaproxyConfig {

    /** A port on 127.0.0.1 the relay listens on and the broker address its connections go to. */
    public record Route(int listenPort, String upstream) {
        public Route {
            if (listenPort < 1 || listenPort > 65535) {
                throw new IllegalArgumentException("listenPort must be a port (1-65535), not " + listenPort);
            }
            if (upstream == null || !upstream.matches("[^\\s:]+:\\d{1,5}")) {
                throw new IllegalArgumentException("upstream must be host:port, not '" + upstream + "'");
            }
        }
    }

    private HaproxyConfig() {
    }

    public static String render(List<Route> routes) {
        if (routes.isEmpty()) {
            throw new IllegalArgumentException("routes must name at least one broker port");
        }
        StringBuilder out = new StringBuilder("""
                # Written by sluice bench proxy (target relay).
                global
                    # Two descriptors per connection must fit the open-file limit haproxy inherits; a benchmark opens a few dozen.
    maxconn 1000

                defaults
                    mode tcp
                    timeout connect 5s
                    # Longer than any benchmark phase: a consumer's connection idles between fetches of the latency phase.
                    timeout client 1h
                    timeout server 1h
                """);
        for (int i = 0; i < routes.size(); i++) {
            Route route = routes.get(i);
            out.append('\n')
                    .append("frontend broker").append(i).append('\n')
                    .append("    bind 127.0.0.1:").append(route.listenPort()).append('\n')
                    .append("    default_backend broker").append(i).append('\n')
                    .append('\n')
                    .append("backend broker").append(i).append('\n')
                    .append("    server broker").append(i).append(' ').append(route.upstream()).append('\n');
        }
        return out.toString();
    }
}
