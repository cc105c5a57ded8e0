package io.sluice.filter.routing;

import org.apache.kafka.common.protocol.ApiKeys;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;

/** Counters of the KeyRouting filter, shared by all its instances (tagged with the filter's name). */
final class RoutingMetrics {

    final Counter producePartitionsRefused;
    final Counter recordsDropped;
    private final MeterRegistry registry;
    private final String filterName;

    RoutingMetrics(MeterRegistry registry, String filterName) {
        this.registry = registry;
        this.filterName = filterName;
        producePartitionsRefused = Counter.builder("sluice.routing.produce.refused")
                .description("produced partitions refused: a key outside the virtual topic, a hidden topic, or a second name for one real topic")
                .tag("filter", filterName).register(registry);
        recordsDropped = Counter.builder("sluice.routing.records.dropped")
                .description("fetched records left out of a virtual topic because their keys are not its keys")
                .tag("filter", filterName).register(registry);
    }

    /** A request of an API that names topics but is not routed (never offered), refused. */
    void refused(ApiKeys api) {
        // Registration is idempotent: the registry hands back the existing counter for the same tags.
        Counter.builder("sluice.routing.requests.refused")
                .description("requests of APIs that name topics KeyRouting does not translate, refused")
                .tag("filter", filterName).tag("api", api.name).register(registry).increment();
    }
}
