package io.sluice.proxy.runtime;

import java.util.function.Function;

import io.sluice.proxy.filter.Filter;
import io.sluice.proxy.filter.RequestFilter;
import io.sluice.proxy.filter.ResponseFilter;
import io.sluice.proxy.filter.TypedFilters;

/**
 * A filter instance, the definition name it was made from (for logs and metrics), and its two sides as the generic
 * filters the pipeline runs ({@link TypedFilters}: a filter of typed per-API interfaces gets a dispatcher); either side
 * is null when the filter has none.
 */
public record NamedFilter(String name, Filter filter, RequestFilter requests, ResponseFilter responses) {

    /** @throws IllegalArgumentException naming the definition, for a filter that mixes generic and typed interfaces */
    public NamedFilter(String name, Filter filter) {
        this(name, filter, side(name, filter, TypedFilters::requestFilter), side(name, filter, TypedFilters::responseFilter));
    }

    private static <T> T side(String name, Filter filter, Function<Filter, T> adapt) {
        try {
            return adapt.apply(filter);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("filter '" + name + "': " + e.getMessage(), e);
        }
    }
}
