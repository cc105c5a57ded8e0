package io.sluice.filter.audit;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.sluice.proxy.filter.FilterFactoryContext;
import io.sluice.proxy.filter.harness.FilterHarness;

import static org.awaitility.Awaitility.await;

/**
 * The Audit filter of one connection in a {@link FilterHarness}, its factory initialised as the proxy would, writing
 * to a captured standard output (the real stdout sink, its buffer and its thread), with a clock the test moves. What
 * comes out: the events, parsed, in order.
 */
final class AuditHarness implements AutoCloseable {

    static final ObjectMapper JSON = new ObjectMapper();

    final TestClock clock = new TestClock();
    final SimpleMeterRegistry registry = new SimpleMeterRegistry();
    final ByteArrayOutputStream stdout = new ByteArrayOutputStream();
    final Audit audit = new Audit(clock, new PrintStream(stdout, true, StandardCharsets.UTF_8));
    final Audit.Shared shared;
    final FilterHarness harness;
    private final ScheduledExecutorService timers = Executors.newSingleThreadScheduledExecutor();
    private boolean closed;

    AuditHarness() {
        this(AuditConfig.DEFAULT_SAMPLE_INTERVAL);
    }

    AuditHarness(Duration sampleInterval) {
        AuditConfig config = AuditConfig.fromYaml(sampleInterval, null, null, AuditConfig.Stdout.fromYaml(null), null);
        shared = audit.initialize(factoryContext(registry, timers), config);
        harness = FilterHarness.of(audit.createFilter(factoryContext(registry, timers), shared));
    }

    /** A factory context as the proxy gives one: the definition's name {@code audit}, a registry, timers. */
    static FilterFactoryContext factoryContext(MeterRegistry registry, ScheduledExecutorService timers) {
        return new FilterFactoryContext() {
            @Override
            public String filterName() {
                return "audit";
            }

            @Override
            public MeterRegistry meterRegistry() {
                return registry;
            }

            @Override
            public ScheduledExecutorService eventLoop() {
                return timers;
            }

            @Override
            public <P> P pluginInstance(Class<P> pluginType, String name) {
                throw new UnsupportedOperationException();
            }

            @Override
            public <T> T bindConfig(Object value, Class<T> type, String field) {
                throw new UnsupportedOperationException();
            }
        };
    }

    /** The raw bytes written so far. */
    String written() {
        return stdout.toString(StandardCharsets.UTF_8);
    }

    /** Every event written so far, parsed. */
    List<JsonNode> events() {
        List<JsonNode> events = new ArrayList<>();
        for (String line : written().split("\n")) {
            if (!line.isEmpty()) {
                try {
                    events.add(JSON.readTree(line));
                } catch (java.io.IOException e) {
                    throw new AssertionError("not a JSON line: " + line, e);
                }
            }
        }
        return events;
    }

    /** Waits until {@code count} events are written (the sink writes on its own thread), then returns them all. */
    List<JsonNode> awaitEvents(int count) {
        await().atMost(Duration.ofSeconds(10)).until(() -> events().size() >= count);
        return events();
    }

    /** The types of the events written, after waiting for {@code count} of them. */
    List<String> awaitTypes(int count) {
        return awaitEvents(count).stream().map(e -> e.get("type").asText()).toList();
    }

    double counter(String name, String tag, String value) {
        var counter = registry.find(name).tag(tag, value).counter();
        return counter == null ? 0 : counter.count();
    }

    /** Shuts the definition down as the proxy does: the sampler's counts, then the sinks drain. */
    void shutdown() {
        if (!closed) {
            closed = true;
            audit.close(shared);
            timers.shutdownNow();
        }
    }

    @Override
    public void close() {
        harness.close();
        shutdown();
    }
}
