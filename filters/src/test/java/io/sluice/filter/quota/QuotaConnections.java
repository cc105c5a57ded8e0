package io.sluice.filter.quota;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.netty.channel.embedded.EmbeddedChannel;
import io.sluice.auth.Permissions;
import io.sluice.auth.QuotaLimits;
import io.sluice.config.ConfigLoader;
import io.sluice.filter.jwt.JwtAuth;
import io.sluice.proxy.filter.AuthenticatedPrincipal;
import io.sluice.proxy.filter.FilterFactoryContext;
import io.sluice.proxy.filter.harness.FilterHarness;

/**
 * One Quotas filter definition and any number of client connections to it, each a {@link FilterHarness}: what the
 * quota tests need that one harness does not give, several connections sharing a principal's rates. The config is
 * YAML bound as the proxy binds it; the rates' clock is moved by hand ({@link #advance}), and the sweeper's timer
 * runs on an embedded event loop moved with it.
 */
final class QuotaConnections implements AutoCloseable {

    static final String FILTER = "quotas";

    final AtomicLong clock = new AtomicLong(1_000_000_000_000L);
    final SimpleMeterRegistry registry = new SimpleMeterRegistry();
    private final EmbeddedChannel timers = new EmbeddedChannel();
    private final Quotas factory = new Quotas(clock::get);
    final Quotas.Shared shared;
    private final List<FilterHarness> connections = new ArrayList<>();

    QuotaConnections(String configYaml) {
        timers.freezeTime();
        QuotasConfig config = bind(configYaml);
        shared = factory.initialize(new Context(registry, timers.eventLoop()), config);
    }

    static QuotasConfig bind(String yaml) {
        return ConfigLoader.bind(ConfigLoader.tree(yaml, Map.of()), QuotasConfig.class, "filterDefinitions[0].config");
    }

    /** A connection of no principal (no authenticating filter before Quotas). */
    FilterHarness anonymous() {
        FilterHarness harness = FilterHarness.of(factory.createFilter(null, shared));
        connections.add(harness);
        return harness;
    }

    /** A connection authenticated as {@code principal}, as JwtAuth reports it, its token carrying {@code tokenQuotas}. */
    FilterHarness as(String principal, QuotaLimits tokenQuotas) {
        FilterHarness harness = anonymous();
        harness.context().authenticated(new AuthenticatedPrincipal(principal, "OAUTHBEARER",
                Map.of(JwtAuth.PERMISSIONS_ATTRIBUTE, Permissions.builder().quotas(tokenQuotas).build())));
        return harness;
    }

    FilterHarness as(String principal) {
        return as(principal, QuotaLimits.NONE);
    }

    /** Moves the rates' clock, and the sweeper's timer with it. */
    void advance(long millis) {
        clock.addAndGet(TimeUnit.MILLISECONDS.toNanos(millis));
        timers.advanceTimeBy(millis, TimeUnit.MILLISECONDS);
        timers.runScheduledPendingTasks();
    }

    MeterRegistry registry() {
        return registry;
    }

    @Override
    public void close() {
        factory.close(shared);
        connections.forEach(FilterHarness::close);
        timers.finishAndReleaseAll();
    }

    private record Context(MeterRegistry meterRegistry, ScheduledExecutorService eventLoop) implements FilterFactoryContext {
        @Override
        public String filterName() {
            return FILTER;
        }

        @Override
        public <P> P pluginInstance(Class<P> pluginType, String name) {
            throw new UnsupportedOperationException();
        }

        @Override
        public <T> T bindConfig(Object value, Class<T> type, String field) {
            throw new UnsupportedOperationException();
        }
    }
}
