package io.sluice.filter.jwt.enforce;

import org.apache.kafka.common.message.FetchResponseData;
import org.apache.kafka.common.record.MemoryRecords;

import io.sluice.auth.KeyAccess;
import io.sluice.filter.records.BatchRewriter;
import io.sluice.filter.records.RecordReader;
import io.sluice.filter.records.UnreadableRecords;

/**
 * Removes the records a principal may not read from fetched record batches, the way the log cleaner removes
 * compacted records: every batch keeps its base and last offset, producer id, epoch and sequence,
 * transactional flag, partition leader epoch and compression, so consumers advance past the gaps exactly as
 * they advance past compacted ones ({@link BatchRewriter#DROP}).
 *
 * <ul>
 *   <li>a batch with nothing to remove, and every control batch (transaction markers), is copied unchanged;</li>
 *   <li>a batch with some records removed is rebuilt from the rest, its last offset set to the original's;</li>
 *   <li>a batch with every record removed becomes an empty batch header covering the same offsets, so the
 *       consumer's position still moves past it and commits and resumes after it;</li>
 *   <li>a truncated last batch (the fetch size cut it) is left out, so not one byte of a record that was not
 *       checked reaches the reader; the consumer fetches it again from its first offset;</li>
 *   <li>old-format batches (magic &lt; 2) and batches that cannot be read within the limits end the partition's
 *       records there ({@link UnreadableRecords#answer}).</li>
 * </ul>
 */
public final class RecordKeyFilter {

    private RecordKeyFilter() {
    }

    /** Filters a fetched partition's records with {@code reader}, the response's reader. */
    public static void filter(FetchResponseData.PartitionData partition, MemoryRecords records, RecordReader reader, KeyAccess read) {
        try {
            partition.setRecords(filter(records, reader, read));
        } catch (UnreadableRecords e) {
            e.answer(partition);
        }
    }

    /**
     * The records {@code read} allows, read within the reader's limits; {@code records} itself when it allows them all.
     *
     * @throws UnreadableRecords when a batch cannot be read (its {@link UnreadableRecords#checked()} holds the filtered
     *                           batches before it)
     */
    static MemoryRecords filter(MemoryRecords records, RecordReader reader, KeyAccess read) {
        if (read.all() || records.sizeInBytes() == 0) {
            return records;
        }
        return BatchRewriter.rewrite(records, records.sizeInBytes(), reader, (batch, record) -> read.allows(record.key()) ? null : BatchRewriter.DROP);
    }
}
