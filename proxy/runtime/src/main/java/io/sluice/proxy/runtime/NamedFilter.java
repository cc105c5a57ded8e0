package io.sluice.proxy.runtime;

import io.sluice.proxy.filter.Filter;

/** A filter instance and the definition name it was made from (for logs and metrics). */
public record NamedFilter(String name, Filter filter) {
}
