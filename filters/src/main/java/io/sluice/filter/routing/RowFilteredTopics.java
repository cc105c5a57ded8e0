package io.sluice.filter.routing;

import io.sluice.auth.Permissions;
import io.sluice.filter.jwt.JwtAuth;
import io.sluice.proxy.filter.FilterContext;

/**
 * Row filters (a token's {@code filters}, docs/bridge-filters.md) name real topics, and JwtAuth, nearest the client,
 * judges the names clients use: it refuses reads of a row-filtered topic by that name, but a virtual topic of it
 * ({@code scores.live.football} of {@code scores}) is another name, which it would let through with the rows
 * unfiltered. KeyRouting knows which real topic a name reads, so it refuses those reads here. The proxy cannot filter
 * rows inside a Fetch, so a row filter means none of the real topic's records reach such a client through the proxy,
 * under whatever name (the bridge, which applies row filters, reads real topics itself).
 */
final class RowFilteredTopics {

    private RowFilteredTopics() {
    }

    /** Whether the connection's authenticated principal has a row filter on {@code realTopic}. */
    static boolean refusesReadOf(FilterContext context, String realTopic) {
        return context.principal()
                .flatMap(p -> p.attribute(JwtAuth.PERMISSIONS_ATTRIBUTE, Permissions.class))
                .map(permissions -> !permissions.rowFilters(realTopic).isEmpty())
                .orElse(false);
    }
}
