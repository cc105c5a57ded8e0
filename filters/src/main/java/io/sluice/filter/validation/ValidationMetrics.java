package io.sluice.filter.validation;

import java.util.EnumMap;
import java.util.Map;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.sluice.auth.Untrusted;
import io.sluice.logging.RateLimitedLog;

/**
 * What an operator sees of the records the filter checks: counters by outcome and by refusal reason (a few fixed
 * values each, tagged with the filter definition's name), and a WARN line at most every
 * {@link RateLimitedLog#DEFAULT_INTERVAL} for refused or unchecked partitions. The log names topic, partition, counts,
 * the reason and the schema id, never a record's bytes or the validator's words about them (which may quote a value).
 * Shared by every connection of one filter definition; thread-safe.
 */
final class ValidationMetrics {

    private static final Logger LOG = LoggerFactory.getLogger(RecordValidationFilter.class);

    final Counter valid;
    final Counter refused;
    final Counter unchecked;
    final Counter outageRefusals;
    private final Map<Verdict.Reason, Counter> reasons = new EnumMap<>(Verdict.Reason.class);
    private final RateLimitedLog log = new RateLimitedLog(LOG);

    ValidationMetrics(MeterRegistry registry, String filter) {
        valid = records(registry, filter, "valid");
        refused = records(registry, filter, "refused");
        unchecked = records(registry, filter, "unchecked");
        outageRefusals = Counter.builder("sluice.validation.outage.partitions")
                .description("Produce partitions refused (REQUEST_TIMED_OUT) because the schema registry could not answer their checks")
                .tag("filter", filter).register(registry);
        for (Verdict.Reason reason : Verdict.Reason.values()) {
            reasons.put(reason, Counter.builder("sluice.validation.refusals")
                    .description("Record parts (keys or values) refused, by reason")
                    .tag("filter", filter).tag("reason", reason.tag()).register(registry));
        }
    }

    private static Counter records(MeterRegistry registry, String filter, String outcome) {
        return Counter.builder("sluice.validation.records")
                .description("Produced records of the rules' topics: valid, refused, or unchecked (passed during a registry outage, onRegistryOutage: accept)")
                .tag("filter", filter).tag("outcome", outcome).register(registry);
    }

    void reason(Verdict.Reason reason) {
        reasons.get(reason).increment();
    }

    void refusedPartition(String connection, String topic, int partition, int refusedRecords, int records, Verdict.Reason first) {
        log.log("{}: refusing produce to {}-{} with INVALID_RECORD: {} of {} records do not conform (first: {})", connection,
                Untrusted.text(topic), partition, refusedRecords, records, first.tag());
    }

    void outage(String connection, String topic, int partition, boolean accepted) {
        log.log("{}: the schema registry cannot answer the checks of a produce to {}-{}: {}", connection, Untrusted.text(topic), partition,
                accepted ? "passing its records unchecked (onRegistryOutage: accept)" : "refusing it with REQUEST_TIMED_OUT (onRegistryOutage: refuse)");
    }
}
