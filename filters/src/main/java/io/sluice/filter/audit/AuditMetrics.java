package io.sluice.filter.audit;

import java.util.EnumMap;
import java.util.Map;
import java.util.function.ToDoubleFunction;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;

/**
 * The audit trail's meters, per filter definition; every label is from a fixed set (event type, sink name):
 * {@code sluice_audit_events_total{filter,type}} events made, {@code sluice_audit_events_suppressed_total{filter,type}}
 * events sampling left out, {@code sluice_audit_events_dropped_total{filter,sink}} events a sink's full buffer refused,
 * {@code sluice_audit_events_failed_total{filter,sink}} events a sink could not write (an I/O error, a failed send),
 * {@code sluice_audit_events_written_total{filter,sink}} and the gauge {@code sluice_audit_buffer_bytes{filter,sink}}.
 */
final class AuditMetrics {

    private final MeterRegistry registry;
    private final String filter;
    private final Map<EventType, Counter> made = new EnumMap<>(EventType.class);
    private final Map<EventType, Counter> suppressed = new EnumMap<>(EventType.class);

    AuditMetrics(MeterRegistry registry, String filter) {
        this.registry = registry;
        this.filter = filter;
        for (EventType type : EventType.values()) {
            made.put(type, Counter.builder("sluice.audit.events").description("Audit events made, by type")
                    .tag("filter", filter).tag("type", type.wireName()).register(registry));
            suppressed.put(type, Counter.builder("sluice.audit.events.suppressed")
                    .description("Audit events left out by sampling (at most one per principal per interval), by type")
                    .tag("filter", filter).tag("type", type.wireName()).register(registry));
        }
    }

    void made(EventType type) {
        made.get(type).increment();
    }

    void suppressed(EventType type) {
        suppressed.get(type).increment();
    }

    /** The counters of one sink. */
    SinkCounters sink(String sink) {
        return new SinkCounters(
                Counter.builder("sluice.audit.events.dropped").description("Audit events dropped because the sink's buffer was full")
                        .tag("filter", filter).tag("sink", sink).register(registry),
                Counter.builder("sluice.audit.events.failed").description("Audit events the sink could not write")
                        .tag("filter", filter).tag("sink", sink).register(registry),
                Counter.builder("sluice.audit.events.written").description("Audit events the sink wrote")
                        .tag("filter", filter).tag("sink", sink).register(registry));
    }

    <T> void bufferGauge(String sink, T state, ToDoubleFunction<T> bytes) {
        Gauge.builder("sluice.audit.buffer.bytes", state, bytes).description("Bytes of audit events waiting in the sink's buffer")
                .tag("filter", filter).tag("sink", sink).register(registry);
    }

    record SinkCounters(Counter dropped, Counter failed, Counter written) {
    }
}
