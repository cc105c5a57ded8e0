package io.sluice.filter.audit;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

import io.micrometer.core.instrument.Counter;
import io.sluice.proxy.filter.harness.FilterHarness;

import static org.awaitility.Awaitility.await;

/**
 * The Audit filter of one connection in a {@link FilterHarness}, its factory initialised as the proxy would (the
 * sampler's sweep on the harness's event loop), writing to a captured standard output (the real stdout sink, its
 * buffer and its thread), with a clock the test moves. What comes out: the events, parsed, in order.
 */
final class AuditHarness implements AutoCloseable {

    static final ObjectMapper JSON = new ObjectMapper();

    final TestClock clock = new TestClock();
    final ByteArrayOutputStream stdout = new ByteArrayOutputStream();
    final FilterHarness harness;

    AuditHarness() {
        this(AuditConfig.DEFAULT_SAMPLE_INTERVAL);
    }

    AuditHarness(Duration sampleInterval) {
        Audit audit = new Audit(clock, new PrintStream(stdout, true, StandardCharsets.UTF_8));
        harness = FilterHarness.of("audit", audit, AuditConfig.fromYaml(sampleInterval, null, null, AuditConfig.Stdout.fromYaml(null), null));
    }

    /** Moves the audit's clock and the harness's timers on together: the sampler's sweep runs when an interval is over. */
    void advance(Duration by) {
        clock.advance(by);
        harness.advanceTime(by);
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

    double counter(String name, String tag, String value) {
        Counter counter = harness.meterRegistry().find(name).tag(tag, value).counter();
        return counter == null ? 0 : counter.count();
    }

    /** Shuts the definition down as the proxy does (the sampler's counts, then the sinks drain); the events are all written after. */
    void shutdown() {
        harness.close();
    }

    @Override
    public void close() {
        harness.close();
    }
}
