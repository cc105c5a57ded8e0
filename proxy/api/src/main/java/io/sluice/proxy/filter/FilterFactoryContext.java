package io.sluice.proxy.filter;

import java.util.concurrent.ScheduledExecutorService;

import io.micrometer.core.instrument.MeterRegistry;

/** What a {@link FilterFactory} can use while initialising and creating filters. */
public interface FilterFactoryContext {

    /** The name of the filter definition being initialised or instantiated. */
    String filterName();

    /** Where filters register their own metrics; exposed on the proxy's {@code /metrics}. */
    MeterRegistry meterRegistry();

    /**
     * In {@link FilterFactory#createFilter}, the connection's event loop; in {@link FilterFactory#initialize},
     * a shared proxy event loop suitable for timers (never block on it).
     */
    ScheduledExecutorService eventLoop();

    /**
     * An instance of a plugin of another kind (a KMS provider, say) by its simple or fully qualified
     * class name, found with {@link java.util.ServiceLoader}.
     */
    <P> P pluginInstance(Class<P> pluginType, String name);
}
