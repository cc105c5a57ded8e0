package io.sluice.bridge.session;

import java.util.List;
import java.util.Map;
import java.util.Objects;

import com.fasterxml.jackson.databind.JsonNode;

import io.sluice.bridge.auth.Principal;
import io.sluice.bridge.selection.SubscriptionFilter;
import io.sluice.bridge.selection.FilterException;
import io.sluice.bridge.selection.FilterLimits;
import io.sluice.bridge.protocol.ErrorCodes;
import io.sluice.bridge.protocol.RequestRefusedException;
import io.sluice.bridge.subscription.EndpointTable;

/**
 * A token's row filters (docs/bridge-filters.md#filters-in-tokens-row-level-permission): compiled with the node's
 * filter limits when the token is accepted, and ANDed into every subscription on a topic they name, before the
 * client's own filter, so that subscriptions with the same token filter and the same own filter share a group.
 */
final class RowFilters {

    private RowFilters() {
    }

    /** Compiles every row filter of the token; a bad one makes the token unusable, with the spot named. */
    static void check(Principal principal, FilterLimits limits) throws FilterException {
        for (Map.Entry<String, JsonNode> e : principal.rowFilters().entrySet()) {
            SubscriptionFilter.parse(e.getValue(), limits, path(e.getKey()));
        }
    }

    /**
     * The filter every record of these topics must pass for this principal: the AND of the row filters of the topic,
     * or null when none applies. A subscription spanning topics whose row filters differ cannot be served (one filter
     * applies to every record of a subscription), so it is refused.
     *
     * @throws IllegalStateException when the topics have different row filters (message for the client)
     */
    static SubscriptionFilter mandatory(Principal principal, List<String> topics, FilterLimits limits) throws FilterException {
        Map<String, JsonNode> first = null;
        for (String topic : topics) {
            Map<String, JsonNode> filters = principal.rowFilters(topic);
            if (first == null) {
                first = filters;
            }
            else if (!Objects.equals(first, filters)) {
                throw new IllegalStateException("the token filters topics " + topics + " differently; subscribe to each topic's endpoints separately");
            }
        }
        if (first == null || first.isEmpty()) {
            return null;
        }
        SubscriptionFilter all = null;
        for (Map.Entry<String, JsonNode> e : first.entrySet()) {
            SubscriptionFilter f = SubscriptionFilter.parse(e.getValue(), limits, path(e.getKey()));
            all = all == null ? f : all.and(f);
        }
        return all;
    }

    /**
     * The token's row filters for the topics a pattern covers, ANDed; null when none applies. Refused (forbidden) when the
     * covered topics are filtered differently.
     */
    static SubscriptionFilter forPattern(Principal principal, EndpointTable table, String pattern, FilterLimits limits, Long id)
            throws RequestRefusedException {
        List<String> topics = table.cover(pattern).stream().map(EndpointTable.Cover::topic).distinct().toList();
        try {
            return mandatory(principal, topics, limits);
        }
        catch (IllegalStateException e) {
            throw new RequestRefusedException(ErrorCodes.FORBIDDEN, e.getMessage(), id);
        }
        catch (FilterException e) {
            // Checked when the token was accepted; only a change of the node's limits could get here.
            throw new RequestRefusedException(ErrorCodes.FORBIDDEN, "the token's row filter is not usable here: " + e.getMessage(), id);
        }
    }

    /**
     * The canonical form of the row filter a subscription to the pattern would get now ({@code "refused"} when it would
     * be refused); it differs from the subscription's after a refresh changed the token's filters.
     */
    static String canonicalNow(Principal principal, EndpointTable table, String pattern, FilterLimits limits) {
        try {
            SubscriptionFilter now = forPattern(principal, table, pattern, limits, null);
            return now == null ? null : now.canonical();
        }
        catch (RequestRefusedException e) {
            return "refused";
        }
    }

    private static String path(String pattern) {
        return "sluice.filters[\"" + pattern + "\"]";
    }
}
