package io.sluice.filter.policy;

import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.function.BiConsumer;

import org.apache.kafka.common.message.RequestHeaderData;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.requests.ApiError;

import io.sluice.proxy.filter.FilterContext;
import io.sluice.proxy.filter.RequestFilterResult;

/**
 * Entries of an admin request (topics to create, topics to grow, config resources to change) that the filter answers
 * itself while the others go on to the broker, as a broker answers each entry on its own: the refused entries are
 * taken out of the request, and their answers added to the broker's response to the rest, or make the whole response
 * when nothing is left. The admin APIs' counterpart of {@link io.sluice.filter.records.RefusedPartitions}. One per
 * request, on the connection's event loop.
 *
 * @param <E> the request's entry type
 */
final class RefusedEntries<E> {

    private final List<Map.Entry<E, ApiError>> refused = new ArrayList<>();
    private final Set<E> taken = Collections.newSetFromMap(new IdentityHashMap<>());

    void refuse(E entry, ApiError error) {
        if (taken.add(entry)) {
            refused.add(Map.entry(entry, error));
        }
    }

    boolean isRefused(E entry) {
        return taken.contains(entry);
    }

    boolean isEmpty() {
        return refused.isEmpty();
    }

    /**
     * @param entries  the request's entries (the refused ones are removed from it)
     * @param empty    the response to answer with when every entry is refused
     * @param addTo    adds an answer for each refused entry, in the order refused, to a response (the broker's, or {@code empty})
     */
    RequestFilterResult result(RequestHeaderData header, ApiMessage request, Collection<E> entries, ApiMessage empty,
                               BiConsumer<ApiMessage, List<Map.Entry<E, ApiError>>> addTo, FilterContext context) {
        if (refused.isEmpty()) {
            return context.requestFilterResultBuilder().forward(header, request).build();
        }
        entries.removeIf(taken::contains);
        if (entries.isEmpty()) {
            addTo.accept(empty, refused);
            return context.requestFilterResultBuilder().shortCircuitResponse(empty).build();
        }
        return context.requestFilterResultBuilder().forward(header, request)
                .withResponseHook(response -> {
                    addTo.accept(response, refused);
                    return CompletableFuture.completedFuture(null);
                }).build();
    }
}
