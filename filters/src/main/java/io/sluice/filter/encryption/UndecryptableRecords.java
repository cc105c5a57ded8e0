package io.sluice.filter.encryption;

import java.util.EnumMap;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongSupplier;

import org.slf4j.Logger;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;

/**
 * What an operator sees of records that cannot be decrypted: a counter by reason, whatever the policy did with them
 * ({@code sluice.encryption.records.undecryptable{filter, reason, action}}), and a WARN line at most every
 * {@link #LOG_INTERVAL_NANOS}, naming the partition, offset and reason, with how many were not logged since. Whoever
 * can write one such record to a topic could otherwise fill the log (one line per consumer fetch) or, under
 * {@code onUndecryptable: FAIL}, stop a partition without anyone noticing.
 *
 * <p>Shared by every connection of one filter definition; thread-safe.</p>
 */
final class UndecryptableRecords {

    static final long LOG_INTERVAL_NANOS = TimeUnit.SECONDS.toNanos(10);

    private final Map<PartitionDecryptor.Reason, Counter> failed = new EnumMap<>(PartitionDecryptor.Reason.class);
    private final Map<PartitionDecryptor.Reason, Counter> dropped = new EnumMap<>(PartitionDecryptor.Reason.class);
    private final LongSupplier nanoClock;
    private final AtomicLong nextLog;
    private final AtomicLong unlogged = new AtomicLong();

    UndecryptableRecords(MeterRegistry registry, String filterName, LongSupplier nanoClock) {
        for (PartitionDecryptor.Reason reason : PartitionDecryptor.Reason.values()) {
            failed.put(reason, counter(registry, filterName, reason, "fail"));
            dropped.put(reason, counter(registry, filterName, reason, "drop"));
        }
        this.nanoClock = nanoClock;
        this.nextLog = new AtomicLong(nanoClock.getAsLong());
    }

    private static Counter counter(MeterRegistry registry, String filterName, PartitionDecryptor.Reason reason, String action) {
        return Counter.builder("sluice.encryption.records.undecryptable")
                .description("encrypted records that could not be decrypted, by reason and what was done: the partition failed, or the record dropped")
                .tag("filter", filterName).tag("reason", reason.tag()).tag("action", action).register(registry);
    }

    /** Counts a record and logs it unless a line was logged less than the interval ago. */
    void record(Logger log, String connection, String topic, int partition, PartitionDecryptor.Undecryptable record, boolean dropping) {
        (dropping ? dropped : failed).get(record.reason()).increment();
        long now = nanoClock.getAsLong();
        long next = nextLog.get();
        if (now - next < 0 || !nextLog.compareAndSet(next, now + LOG_INTERVAL_NANOS)) {
            unlogged.incrementAndGet();
            return;
        }
        long skipped = unlogged.getAndSet(0);
        log.warn("{}: {}-{} offset {}: cannot decrypt ({}): {}; {}{}", connection, topic, partition, record.offset(), record.reason().tag(),
                logSafe(record.detail()), dropping ? "record dropped (onUndecryptable: DROP)" : "partition returned as CORRUPT_MESSAGE (onUndecryptable: FAIL)",
                skipped == 0 ? "" : " (" + skipped + " more undecryptable records not logged)");
    }

    /**
     * The detail can quote what the record's writer chose (a KEK name, a KMS message about the wrapped key): control
     * characters would let them forge log lines, and a 64 KiB KEK name would fill the log.
     */
    static String logSafe(String detail) {
        if (detail == null) {
            return "";
        }
        StringBuilder out = new StringBuilder(Math.min(detail.length(), MAX_DETAIL));
        for (int i = 0; i < detail.length() && out.length() < MAX_DETAIL; i++) {
            char c = detail.charAt(i);
            out.append(Character.isISOControl(c) || Character.getType(c) == Character.FORMAT ? '?' : c);
        }
        return detail.length() > MAX_DETAIL ? out.append("...").toString() : out.toString();
    }

    private static final int MAX_DETAIL = 200;
}
