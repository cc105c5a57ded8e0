package io.sluice.filter.masking;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.sluice.auth.Untrusted;
import io.sluice.logging.RateLimitedLog;

/**
 * What an operator sees of the masking: records masked, refused (their partition answered CORRUPT_MESSAGE), dropped,
 * and partitions held back while the schema registry cannot answer, tagged with the filter definition's name; a WARN
 * line at most every {@link RateLimitedLog#DEFAULT_INTERVAL}, naming topic, partition, offset and the field, never a
 * value. Shared by every connection of one filter definition; thread-safe.
 */
final class MaskingMetrics {

    private static final Logger LOG = LoggerFactory.getLogger(FieldMaskingFilter.class);

    final Counter masked;
    final Counter refused;
    final Counter dropped;
    final Counter outages;
    private final RateLimitedLog log = new RateLimitedLog(LOG);

    MaskingMetrics(MeterRegistry registry, String filter) {
        masked = records(registry, filter, "masked");
        refused = records(registry, filter, "refused");
        dropped = records(registry, filter, "dropped");
        outages = Counter.builder("sluice.masking.outage.partitions")
                .description("Fetched partitions returned without records because the schema registry could not give their schemas")
                .tag("filter", filter).register(registry);
    }

    private static Counter records(MeterRegistry registry, String filter, String outcome) {
        return Counter.builder("sluice.masking.records")
                .description("Fetched records of the rules' topics: masked, refused (partition answered CORRUPT_MESSAGE) or dropped (onFailure: drop)")
                .tag("filter", filter).tag("outcome", outcome).register(registry);
    }

    void unmaskable(String connection, String topic, int partition, long offset, String reason, boolean dropped) {
        log.log("{}: cannot mask the record at {}-{} offset {}: {}; {}", connection, Untrusted.text(topic), partition, offset,
                Untrusted.text(reason), dropped ? "dropping it (onFailure: drop)" : "answering the partition with CORRUPT_MESSAGE (onFailure: refuse)");
    }

    void outage(String connection, String topic, int partition) {
        log.log("{}: the schema registry cannot give the schemas of {}-{}: returning it without records, so the consumer fetches again",
                connection, Untrusted.text(topic), partition);
    }
}
