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

    /**
     * Binds a nested part of this filter's config (a plugin's own settings, say) to {@code type} with the rules the
     * proxy binds every section with: unknown fields and bad values are errors naming
     * {@code filterDefinitions[name].config.<field>...}, and environment variables were already substituted. Declare
     * the nested field as {@code Object} (or {@code Map<String, Object>}) in the config type: the filter then needs
     * no binding library of its own. A null value binds like an empty object.
     *
     * @param value the nested value as the config type received it
     * @param field where the value sits in this filter's config, e.g. {@code kmsConfig}
     * @throws RuntimeException listing every problem, each naming its field: let it propagate from
     *                          {@link FilterFactory#initialize}, the proxy reports the problems and does not start
     */
    <T> T bindConfig(Object value, Class<T> type, String field);
}
