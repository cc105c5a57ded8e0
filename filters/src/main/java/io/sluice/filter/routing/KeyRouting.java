package io.sluice.filter.routing;

import java.util.List;

import io.sluice.filter.records.RecordLimits;
import io.sluice.filter.records.RecordReaders;
import io.sluice.proxy.filter.Filter;
import io.sluice.proxy.filter.FilterFactory;
import io.sluice.proxy.filter.FilterFactoryContext;

/**
 * KeyRouting: virtual topics that are a real topic's records with matching keys, in the Kafkorama sense of an
 * endpoint. Clients produce to, fetch from, list, commit and describe the virtual names; the broker only ever
 * sees the real topic. See docs/key-routing.md.
 *
 * <pre>
 * filterDefinitions:
 *   - name: routing
 *     type: KeyRouting
 *     config:
 *       hideRealTopics: true
 *       routes:
 *         - { virtual: scores.results,        topic: scores, key: results }
 *         - { virtual: scores.live.$(sport),  topic: scores, key: live/$(sport) }
 *         - { virtual: scores.$(match),       topic: scores, key: $(match) }
 * </pre>
 */
public final class KeyRouting implements FilterFactory<KeyRouting.Config, KeyRouting.Shared> {

    /**
     * @param routes         virtual topic (name or {@code $(name)} template) → real topic and key pattern
     * @param hideRealTopics keep the real topics behind routes from clients (default false)
     * @param records        how much of the records it reads to route them, at most (absent: the defaults)
     */
    public record Config(List<RouteConfig> routes, Boolean hideRealTopics, RecordLimits records) {

        public Config(List<RouteConfig> routes, Boolean hideRealTopics) {
            this(routes, hideRealTopics, null);
        }
    }

    /**
     * @param virtual the name clients use, with {@code $(name)} placeholders for one run of [A-Za-z0-9_-] each
     * @param topic   the real topic, which may use the virtual name's placeholders
     * @param key     the keys of the virtual topic's records: a JWT-style key pattern ({@code live/*}) which may use
     *                the virtual name's placeholders ({@code live/$(sport)})
     */
    public record RouteConfig(String virtual, String topic, String key) {
    }

    /** What every connection shares: the immutable route table, the record limits and the meters. */
    public record Shared(RouteTable routes, RecordReaders records, RoutingMetrics metrics) {
    }

    @Override
    public Class<Config> configType() {
        return Config.class;
    }

    @Override
    public Shared initialize(FilterFactoryContext context, Config config) {
        return new Shared(RouteTable.of(config), new RecordReaders(RecordLimits.orDefaults(config.records()), context.meterRegistry(), context.filterName()), new RoutingMetrics(context.meterRegistry(), context.filterName()));
    }

    @Override
    public Filter createFilter(FilterFactoryContext context, Shared shared) {
        return new KeyRoutingFilter(shared.routes(), shared.records(), shared.metrics());
    }
}
