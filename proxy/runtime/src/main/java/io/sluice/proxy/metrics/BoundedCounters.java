package io.sluice.proxy.metrics;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tags;

import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;

/**
 * Counters keyed by one free-form label value. Used only on error paths (rejections, filter failures), where a map
 * lookup is cheap next to the failure itself. The cap stops a caller that builds label values from input (an
 * exception message, a client id) from growing the scrape without bound.
 */
final class BoundedCounters {

    static final String OVERFLOW_VALUE = "other";

    private final MeterRegistry registry;
    private final String name;
    private final String description;
    private final Tags baseTags;
    private final String labelKey;
    private final int maxValues;
    private final ConcurrentMap<String, Counter> counters = new ConcurrentHashMap<>();

    BoundedCounters(MeterRegistry registry, String name, String description, Tags baseTags, String labelKey, int maxValues) {
        this.registry = registry;
        this.name = name;
        this.description = description;
        this.baseTags = baseTags;
        this.labelKey = labelKey;
        this.maxValues = maxValues;
    }

    void increment(String labelValue) {
        String value = labelValue == null || labelValue.isEmpty() ? "unknown" : labelValue;
        Counter counter = counters.get(value);
        if (counter == null) {
            counter = counters.size() < maxValues
                    ? counters.computeIfAbsent(value, this::create)
                    : counters.computeIfAbsent(OVERFLOW_VALUE, this::create);
        }
        counter.increment();
    }

    private Counter create(String value) {
        return Counter.builder(name)
                .description(description)
                .tags(baseTags)
                .tag(labelKey, value)
                .register(registry);
    }
}
