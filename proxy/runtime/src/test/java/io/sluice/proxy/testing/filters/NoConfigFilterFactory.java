package io.sluice.proxy.testing.filters;

import io.sluice.proxy.filter.FilterFactory;
import io.sluice.proxy.filter.FilterFactoryContext;

/** The factory half of a test filter that takes no configuration and shares nothing between connections. */
abstract class NoConfigFilterFactory implements FilterFactory<Void, Void> {

    @Override
    public final Class<Void> configType() {
        return Void.class;
    }

    @Override
    public final Void initialize(FilterFactoryContext context, Void config) {
        return null;
    }
}
