package io.sluice.filter.routing;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;

/** Counters of the KeyRouting filter, shared by all its instances (tagged with the filter's name). */
final class RoutingMetrics {

    final Counter producePartitionsRefused;
    final Counter recordsDropped;

    RoutingMetrics(MeterRegistry registry, String filterName) {
        producePartitionsRefused = Counter.builder("sluice.routing.produce.refused")
                .description("produced partitions refused: a key outside the virtual topic, a hidden topic, or a second name for one real topic")
                .tag("filter", filterName).register(registry);
        recordsDropped = Counter.builder("sluice.routing.records.dropped")
                .description("fetched records left out of a virtual topic because their keys are not its keys")
                .tag("filter", filterName).register(registry);
    }
}
