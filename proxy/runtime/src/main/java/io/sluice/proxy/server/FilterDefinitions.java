package io.sluice.proxy.server;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.ServiceLoader;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;

import org.slf4j.LoggerFactory;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.NullNode;

import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.sluice.config.ConfigException;
import io.sluice.config.ConfigLoader;
import io.sluice.proxy.config.FilterDefinition;
import io.sluice.proxy.filter.Filter;
import io.sluice.proxy.filter.FilterFactory;
import io.sluice.proxy.filter.FilterFactoryContext;

/**
 * The configured filter definitions, each with its factory (found with {@link ServiceLoader} by the
 * {@code type} name) and what the factory initialised from its config. Built once at start-up; a bad
 * type or config stops the proxy with an error naming the field.
 */
final class FilterDefinitions implements AutoCloseable {

    /** One initialised definition. */
    record Initialised(String name, FilterFactory<Object, Object> factory, Object data) {
        Filter create(FilterFactoryContext context) {
            return factory.createFilter(context, data);
        }
    }

    private final Map<String, Initialised> byName = new HashMap<>();

    FilterDefinitions(List<FilterDefinition> definitions, MeterRegistry registry, ScheduledExecutorService timers) {
        List<String> problems = eachDefinition(definitions, (def, factory, config) -> byName.put(def.name(),
                new Initialised(def.name(), factory, factory.initialize(new FactoryContext(def.name(), registry, timers), config))));
        if (!problems.isEmpty()) {
            close();
            throw new ConfigException(problems);
        }
    }

    /**
     * The same checks as the constructor, through each factory's {@link FilterFactory#validate}: nothing is kept, and
     * the meters and timers the factories are given are thrown away afterwards.
     */
    static void validate(List<FilterDefinition> definitions) {
        MeterRegistry registry = new SimpleMeterRegistry();
        ScheduledExecutorService timers = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, "sluice-validate");
            t.setDaemon(true);
            return t;
        });
        try {
            List<String> problems = eachDefinition(definitions,
                    (def, factory, config) -> factory.validate(new FactoryContext(def.name(), registry, timers), config));
            if (!problems.isEmpty()) {
                throw new ConfigException(problems);
            }
        } finally {
            timers.shutdownNow();
            registry.close();
        }
    }

    private interface DefinitionAction {
        void accept(FilterDefinition definition, FilterFactory<Object, Object> factory, Object config);
    }

    /** Finds each definition's factory, binds its config and runs {@code action}; returns the problems, each naming its field. */
    @SuppressWarnings("unchecked")
    private static List<String> eachDefinition(List<FilterDefinition> definitions, DefinitionAction action) {
        List<String> problems = new ArrayList<>();
        for (int i = 0; i < definitions.size(); i++) {
            FilterDefinition def = definitions.get(i);
            String path = "filterDefinitions[" + i + "]";
            FilterFactory<Object, Object> factory = (FilterFactory<Object, Object>) findPlugin(FilterFactory.class, def.type());
            if (factory == null) {
                problems.add(path + ".type: no filter named '" + def.type() + "' (available: " + available(FilterFactory.class) + ")");
                continue;
            }
            try {
                Object config = (Class<?>) factory.configType() == Void.class ? null
                        : ConfigLoader.bind(def.config() == null ? NullNode.getInstance() : def.config(), factory.configType(), path + ".config");
                action.accept(def, factory, config);
            } catch (ConfigException e) {
                problems.addAll(e.problems());
            } catch (IllegalArgumentException e) {
                problems.add(path + ".config: " + e.getMessage());
            }
        }
        return problems;
    }

    Initialised get(String name) {
        return byName.get(name);
    }

    @Override
    public void close() {
        byName.values().forEach(d -> {
            try {
                d.factory().close(d.data());
            } catch (RuntimeException e) {
                LoggerFactory.getLogger(FilterDefinitions.class).warn("filter {} failed to close: {}", d.name(), e.toString());
            }
        });
    }

    /** Plugins are named by simple or fully qualified class name, as Kroxylicious users expect. */
    static <P> P findPlugin(Class<P> type, String name) {
        for (P candidate : ServiceLoader.load(type)) {
            Class<?> c = candidate.getClass();
            if (c.getName().equals(name) || c.getSimpleName().equals(name)) {
                return candidate;
            }
        }
        return null;
    }

    static String available(Class<?> type) {
        List<String> names = new ArrayList<>();
        ServiceLoader.load(type).forEach(p -> names.add(p.getClass().getSimpleName()));
        return names.isEmpty() ? "none" : String.join(", ", names);
    }

    /** The factory context; {@code eventLoop} is the connection's loop when creating filters. */
    record FactoryContext(String filterName, MeterRegistry meterRegistry, ScheduledExecutorService eventLoop) implements FilterFactoryContext {
        @Override
        public <P> P pluginInstance(Class<P> pluginType, String name) {
            P plugin = findPlugin(pluginType, name);
            if (plugin == null) {
                throw new IllegalArgumentException("no " + pluginType.getSimpleName() + " named '" + name + "' (available: " + available(pluginType) + ")");
            }
            return plugin;
        }

        /** Through the proxy's own binder; a value that is not yet a tree (an {@code Object} field) is turned into one first. */
        @Override
        public <T> T bindConfig(Object value, Class<T> type, String field) {
            JsonNode node = value instanceof JsonNode tree ? tree : ConfigLoader.mapper().valueToTree(value);
            return ConfigLoader.bind(node, type, "filterDefinitions[" + filterName + "].config." + field);
        }
    }
}
