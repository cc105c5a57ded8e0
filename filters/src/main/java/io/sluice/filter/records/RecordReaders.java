package io.sluice.filter.records;

import java.util.EnumMap;
import java.util.Locale;
import java.util.Map;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.sluice.logging.RateLimitedLog;

/**
 * One filter definition's {@link RecordReader}s: its {@link RecordLimits}, and a meter and a rate-limited log line
 * for every batch its readers refuse ({@code sluice_filter_records_unreadable_total{filter, direction, reason}}).
 * Shared by every connection of the definition; thread-safe.
 */
public final class RecordReaders {

    private static final Logger LOG = LoggerFactory.getLogger(RecordReaders.class);

    private final RecordLimits limits;
    private final String filter;
    private final Map<UnreadableRecords.Reason, Counter> produced = new EnumMap<>(UnreadableRecords.Reason.class);
    private final Map<UnreadableRecords.Reason, Counter> fetched = new EnumMap<>(UnreadableRecords.Reason.class);
    private final RateLimitedLog log = new RateLimitedLog(LOG);

    public RecordReaders(RecordLimits limits, MeterRegistry registry, String filter) {
        this.limits = limits;
        this.filter = filter;
        for (UnreadableRecords.Reason reason : UnreadableRecords.Reason.values()) {
            produced.put(reason, counter(registry, filter, "produce", reason));
            fetched.put(reason, counter(registry, filter, "fetch", reason));
        }
    }

    public RecordLimits limits() {
        return limits;
    }

    /** A reader for one Produce request's records. */
    public RecordReader forProduce() {
        return RecordReader.forProduce(limits).onUnreadable(e -> refused(produced, "produce", e));
    }

    /** A reader for one Fetch response's records. */
    public RecordReader forFetch() {
        return RecordReader.forFetch(limits).onUnreadable(e -> refused(fetched, "fetch", e));
    }

    private void refused(Map<UnreadableRecords.Reason, Counter> counters, String direction, UnreadableRecords e) {
        counters.get(e.reason()).increment();
        // The message holds offsets, sizes and kafka-clients' reason, never record contents.
        log.log("{}: unreadable records in a {} ({}): {}", filter, direction, e.reason(), e.getMessage());
    }

    private static Counter counter(MeterRegistry registry, String filter, String direction, UnreadableRecords.Reason reason) {
        return Counter.builder("sluice.filter.records.unreadable")
                .description("Record batches a filter refused to pass on: corrupt, over its record limits, or not accepted (old format)")
                .tag("filter", filter).tag("direction", direction).tag("reason", reason.name().toLowerCase(Locale.ROOT))
                .register(registry);
    }
}
