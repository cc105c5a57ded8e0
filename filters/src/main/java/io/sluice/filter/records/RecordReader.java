package io.sluice.filter.records;

import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.function.Consumer;

import org.apache.kafka.common.record.DefaultRecordBatch;
import org.apache.kafka.common.record.MemoryRecords;
import org.apache.kafka.common.record.MutableRecordBatch;
import org.apache.kafka.common.record.Record;
import org.apache.kafka.common.record.RecordBatch;
import org.apache.kafka.common.utils.BufferSupplier;
import org.apache.kafka.common.utils.CloseableIterator;

/**
 * The one way Sluice's filters read records, bounded by {@link RecordLimits} whatever the batch headers claim.
 * Nothing is allocated from a header's record count; a record's body is refused before it is allocated when it
 * claims more than {@code maxRecordBytes} (kafka-clients' bounded {@code streamingIterator}); decompression stops
 * at {@code maxBatchBytes} per batch and {@code maxRequestBytes} for everything this reader reads; a batch whose
 * records disagree with its header (fewer or more records, trailing bytes, a bad CRC) is corrupt.
 *
 * <p>One reader per request or response and per pass over it: the request limit counts what this reader has
 * decompressed. Old-format batches (magic &lt; 2) are not read at all (see {@link UnreadableRecords.Reason#NOT_ACCEPTED}).
 * Control batches (transaction markers, written by brokers only) hold no keys or values; callers pass them on
 * without reading them.</p>
 */
public final class RecordReader {

    private final RecordLimits limits;
    private final boolean produced;
    private long requestBytesLeft;
    private Consumer<UnreadableRecords> onUnreadable = e -> { };

    private RecordReader(RecordLimits limits, boolean produced) {
        this.limits = limits;
        this.produced = produced;
        this.requestBytesLeft = limits.maxRequestBytes();
    }

    /**
     * For records a client produces: every byte must belong to a complete batch; a truncated last batch is corrupt.
     */
    public static RecordReader forProduce(RecordLimits limits) {
        return new RecordReader(limits, true);
    }

    /**
     * For records a broker returns to a Fetch: a last batch cut short by the fetch size is legitimate, and is
     * left out of {@link #batches} (the consumer fetches it again from its first offset).
     */
    public static RecordReader forFetch(RecordLimits limits) {
        return new RecordReader(limits, false);
    }

    /** Tells {@code listener} of every refusal this reader raises (for meters and logs: {@link RecordReaders}). */
    RecordReader onUnreadable(Consumer<UnreadableRecords> listener) {
        this.onUnreadable = listener;
        return this;
    }

    /**
     * The complete batches of {@code records}, in order, and what went wrong after them.
     *
     * @param complete   the batches whose framing (size, magic) is sound and whose bytes are all there
     * @param completeBytes their size in bytes, from the start of {@code records}
     * @param problem    null when nothing follows them but, on a Fetch, the truncated last batch; else why reading stopped
     */
    public record Batches(List<MutableRecordBatch> complete, int completeBytes, UnreadableRecords problem) {
    }

    public Batches batches(MemoryRecords records) {
        List<MutableRecordBatch> complete = new ArrayList<>();
        int bytes = 0;
        UnreadableRecords problem = null;
        Iterator<MutableRecordBatch> it = records.batches().iterator();
        try {
            while (it.hasNext()) {
                MutableRecordBatch batch = it.next();
                if (produced && batch.isControlBatch()) {
                    problem = new UnreadableRecords(UnreadableRecords.Reason.NOT_ACCEPTED, "control batch at byte " + bytes + ": clients may not write control batches");
                    break;
                }
                complete.add(batch);
                bytes += batch.sizeInBytes();
            }
        } catch (RuntimeException e) {
            problem = new UnreadableRecords(UnreadableRecords.Reason.CORRUPT, "malformed record batch at byte " + bytes + ": " + e.getMessage());
        }
        if (problem == null && produced && bytes < records.sizeInBytes()) {
            problem = new UnreadableRecords(UnreadableRecords.Reason.CORRUPT,
                    (records.sizeInBytes() - bytes) + " bytes after the last complete record batch");
        }
        return new Batches(complete, bytes, problem == null ? null : refused(problem));
    }

    /** Every record of {@code batch}, read within the limits (a compressed batch is decompressed once). */
    public List<Record> read(RecordBatch batch) {
        List<Record> records = new ArrayList<>();
        each(batch, false, records::add);
        return records;
    }

    /** Hands each record of {@code batch} to {@code action} as it is read, keeping none. */
    public void forEach(RecordBatch batch, Consumer<Record> action) {
        each(batch, false, action);
    }

    /**
     * How many records {@code records} really holds, counted by reading them (keys and values skipped), never
     * from batch headers; control batches count nothing.
     *
     * @throws UnreadableRecords when they cannot all be read
     */
    public int count(MemoryRecords records) {
        Batches batches = batches(records);
        if (batches.problem() != null) {
            throw batches.problem();
        }
        int[] count = { 0 };
        for (MutableRecordBatch batch : batches.complete()) {
            if (!batch.isControlBatch()) {
                each(batch, true, record -> count[0]++);
            }
        }
        return count[0];
    }

    private void each(RecordBatch batch, boolean skipKeyValue, Consumer<Record> action) {
        try {
            read(batch, skipKeyValue, action);
        } catch (UnreadableRecords e) {
            throw refused(e);
        }
    }

    /** For a batch whose records kafka-clients read but cannot be written back as they are (offsets out of order). */
    UnreadableRecords corrupt(RecordBatch batch, String why) {
        return refused(new UnreadableRecords(UnreadableRecords.Reason.CORRUPT, "corrupt record batch at offset " + batch.baseOffset() + ": " + why));
    }

    private UnreadableRecords refused(UnreadableRecords e) {
        onUnreadable.accept(e);
        return e;
    }

    private void read(RecordBatch batch, boolean skipKeyValue, Consumer<Record> action) {
        if (batch.magic() < RecordBatch.MAGIC_VALUE_V2) {
            throw new UnreadableRecords(UnreadableRecords.Reason.NOT_ACCEPTED,
                    "record batch at offset " + batch.baseOffset() + " has message format v" + batch.magic() + "; only v2 is accepted");
        }
        CloseableIterator<Record> records;
        try {
            batch.ensureValid();
            if (Integer.valueOf(0).equals(batch.countOrNull()) && batch.sizeInBytes() > DefaultRecordBatch.RECORD_BATCH_OVERHEAD) {
                // kafka-clients reads a batch by its count: records behind a count of 0 would pass unread, bytes and all.
                throw new IllegalArgumentException("a batch of 0 records holds " + (batch.sizeInBytes() - DefaultRecordBatch.RECORD_BATCH_OVERHEAD)
                        + " bytes after its header");
            }
            // Bounded: a record claiming more than maxRecordBytes is refused before its body is allocated.
            records = skipKeyValue && batch instanceof DefaultRecordBatch v2 ? v2.skipKeyValueIterator(BufferSupplier.NO_CACHING, limits.maxRecordBytes())
                    : batch.streamingIterator(BufferSupplier.NO_CACHING, limits.maxRecordBytes());
        } catch (RuntimeException e) {
            throw corrupt(batch, e);
        }
        boolean compressed = batch.compressionType().id != 0;
        long decompressed = 0;
        long previousOffset = batch.baseOffset() - 1;
        try (records) {
            while (true) {
                Record record;
                try {
                    if (!records.hasNext()) {
                        break;
                    }
                    record = records.next();
                } catch (RuntimeException e) {
                    // kafka-clients' iterator checks the count against the content: fewer records than the header
                    // says (premature end), or bytes left after the last one, is an InvalidRecordException here.
                    throw corrupt(batch, e);
                }
                if (record.offset() <= previousOffset || record.offset() > batch.lastOffset()) {
                    // Offsets are header claims too: each record's must rise within the batch's range.
                    throw new UnreadableRecords(UnreadableRecords.Reason.CORRUPT, "record batch at offset " + batch.baseOffset() + " holds a record at offset "
                            + record.offset() + ", after " + previousOffset + " and outside or out of order in [" + batch.baseOffset() + ", " + batch.lastOffset() + "]");
                }
                previousOffset = record.offset();
                if (record.sizeInBytes() > limits.maxRecordBytes()) {
                    // Only compressed batches are bounded by kafka-clients; an uncompressed record is a view, but is held to the same size.
                    throw tooLargeRecord(batch, record.sizeInBytes());
                }
                if (compressed) {
                    decompressed += record.sizeInBytes();
                    if (decompressed > limits.maxBatchBytes()) {
                        throw new UnreadableRecords(UnreadableRecords.Reason.TOO_LARGE, "record batch at offset " + batch.baseOffset()
                                + " decompresses to more than " + limits.maxBatchBytes() + " bytes (maxBatchBytes)");
                    }
                    if (decompressed > requestBytesLeft) {
                        throw new UnreadableRecords(UnreadableRecords.Reason.OVER_REQUEST_LIMIT, "records decompress to more than "
                                + limits.maxRequestBytes() + " bytes in one request (maxRequestBytes)");
                    }
                }
                action.accept(record);
            }
        } finally {
            requestBytesLeft -= decompressed;
        }
    }

    private UnreadableRecords tooLargeRecord(RecordBatch batch, long size) {
        return new UnreadableRecords(UnreadableRecords.Reason.TOO_LARGE, "record batch at offset " + batch.baseOffset() + " holds a record of "
                + size + " bytes, more than " + limits.maxRecordBytes() + " (maxRecordBytes)");
    }

    private static UnreadableRecords corrupt(RecordBatch batch, RuntimeException e) {
        String why = e.getMessage() == null ? e.getClass().getSimpleName() : e.getMessage();
        if (why.contains("exceeds the configured maximum record size")) {
            // kafka-clients refusing a record body larger than maxRecordBytes, before allocating it
            return new UnreadableRecords(UnreadableRecords.Reason.TOO_LARGE, "record batch at offset " + batch.baseOffset() + ": " + why);
        }
        return new UnreadableRecords(UnreadableRecords.Reason.CORRUPT, "corrupt record batch at offset " + batch.baseOffset() + ": " + why);
    }
}
