package io.sluice.filter.encryption;

import java.util.EnumMap;
import java.util.Map;

import org.slf4j.Logger;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.sluice.auth.Untrusted;
import io.sluice.logging.RateLimitedLog;

/**
 * What an operator sees of records that cannot be decrypted: a counter by reason, whatever the policy did with them
 * ({@code sluice.encryption.records.undecryptable{filter, reason, action}}), and a WARN line at most every
 * {@link RateLimitedLog#DEFAULT_INTERVAL}, naming the partition, offset and reason, with how many were not logged since. Whoever
 * can write one such record to a topic could otherwise fill the log (one line per consumer fetch) or, under
 * {@code onUndecryptable: FAIL}, stop a partition without anyone noticing.
 *
 * <p>Shared by every connection of one filter definition; thread-safe.</p>
 */
final class UndecryptableRecords {

    private final Map<PartitionDecryptor.Reason, Counter> failed = new EnumMap<>(PartitionDecryptor.Reason.class);
    private final Map<PartitionDecryptor.Reason, Counter> dropped = new EnumMap<>(PartitionDecryptor.Reason.class);
    private final RateLimitedLog log;

    UndecryptableRecords(MeterRegistry registry, String filterName, Logger logger) {
        for (PartitionDecryptor.Reason reason : PartitionDecryptor.Reason.values()) {
            failed.put(reason, counter(registry, filterName, reason, "fail"));
            dropped.put(reason, counter(registry, filterName, reason, "drop"));
        }
        this.log = new RateLimitedLog(logger);
    }

    private static Counter counter(MeterRegistry registry, String filterName, PartitionDecryptor.Reason reason, String action) {
        return Counter.builder("sluice.encryption.records.undecryptable")
                .description("encrypted records that could not be decrypted, by reason and what was done: the partition failed, or the record dropped")
                .tag("filter", filterName).tag("reason", reason.tag()).tag("action", action).register(registry);
    }

    /**
     * Counts a record and logs it unless a line was logged less than the interval ago. The detail can quote what the
     * record's writer chose (a KEK name, a KMS message about the wrapped key), so it goes to the log escaped and cut.
     */
    void record(String connection, String topic, int partition, PartitionDecryptor.Undecryptable record, boolean dropping) {
        (dropping ? dropped : failed).get(record.reason()).increment();
        log.log("{}: {}-{} offset {}: cannot decrypt ({}): {}; {}", connection, topic, partition, record.offset(), record.reason().tag(),
                Untrusted.text(record.detail()), dropping ? "record dropped (onUndecryptable: DROP)" : "partition returned as CORRUPT_MESSAGE (onUndecryptable: FAIL)");
    }
}
