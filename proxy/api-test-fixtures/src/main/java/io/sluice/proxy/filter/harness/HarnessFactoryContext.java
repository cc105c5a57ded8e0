package io.sluice.proxy.filter.harness;

import java.util.ServiceLoader;
import java.util.concurrent.ScheduledExecutorService;

import io.micrometer.core.instrument.MeterRegistry;
import io.sluice.proxy.filter.FilterFactoryContext;

/**
 * The {@link FilterFactoryContext} a {@link FilterHarness} initialises a factory with: the filter name, a registry the
 * test reads the filter's metrics from, the harness's event loop, plugins found with {@link ServiceLoader} as the proxy
 * finds them. Config binding is the proxy's (Jackson, with its error paths); here the value must already be of the
 * type asked for, which is how a test passes a nested config.
 */
final class HarnessFactoryContext implements FilterFactoryContext {

    private final String filterName;
    private final MeterRegistry registry;
    private final ScheduledExecutorService eventLoop;

    HarnessFactoryContext(String filterName, MeterRegistry registry, ScheduledExecutorService eventLoop) {
        this.filterName = filterName;
        this.registry = registry;
        this.eventLoop = eventLoop;
    }

    @Override
    public String filterName() {
        return filterName;
    }

    @Override
    public MeterRegistry meterRegistry() {
        return registry;
    }

    @Override
    public ScheduledExecutorService eventLoop() {
        return eventLoop;
    }

    @Override
    public <P> P pluginInstance(Class<P> pluginType, String name) {
        for (P plugin : ServiceLoader.load(pluginType)) {
            if (plugin.getClass().getSimpleName().equals(name) || plugin.getClass().getName().equals(name)) {
                return plugin;
            }
        }
        throw new IllegalArgumentException("no " + pluginType.getSimpleName() + " named " + name + " on the class path");
    }

    @Override
    public <T> T bindConfig(Object value, Class<T> type, String field) {
        if (type.isInstance(value)) {
            return type.cast(value);
        }
        throw new IllegalArgumentException(field + ": the harness binds no config; pass a " + type.getSimpleName() + " (got "
                + (value == null ? "null" : value.getClass().getSimpleName()) + ")");
    }
}
