package io.sluice.filter.records;

import java.nio.ByteBuffer;
import java.util.List;

import org.apache.kafka.common.compress.Compression;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.record.CompressionType;
import org.apache.kafka.common.record.DefaultRecordBatch;
import org.apache.kafka.common.record.MemoryRecords;
import org.apache.kafka.common.record.MemoryRecordsBuilder;
import org.apache.kafka.common.record.MutableRecordBatch;
import org.apache.kafka.common.record.Record;
import org.apache.kafka.common.record.RecordBatch;
import org.apache.kafka.common.record.TimestampType;
import org.apache.kafka.common.utils.ByteBufferOutputStream;

/**
 * Rebuilds the records of one partition with some records changed, keeping everything else about each
 * batch: base offset and every record's offset, producer id, epoch and base sequence, transactional and
 * control flags, partition leader epoch, timestamp type and every record's timestamp, and the codec.
 * Control batches (transaction markers) and batches the transform leaves alone are copied byte for byte.
 *
 * <p>Why rebuild rather than patch: a record's value sits inside a (possibly compressed) batch protected
 * by a CRC, so any change means re-encoding the batch; kafka-clients' {@link MemoryRecordsBuilder} does
 * that exactly as producers do.</p>
 */
public final class BatchRewriter {

    /** What to do with one record; return the record unchanged ({@code same}) to keep it as it is. */
    @FunctionalInterface
    public interface RecordTransform {
        /** @return the replacement, or {@code null} to keep the original record */
        Rewritten apply(RecordBatch batch, Record record);
    }

    /** A replacement value and headers for a record (its key, offset and timestamp never change). */
    public record Rewritten(ByteBuffer value, Header[] headers) {
    }

    /**
     * Returned by a transform to remove a record. Its offset stays taken: the batch keeps its last offset
     * (an emptied batch stays as an empty batch), so consumers move past removed records and commit and
     * resume exactly as if they had seen them.
     */
    public static final Rewritten DROP = new Rewritten(null, new Header[0]);

    private BatchRewriter() {
    }

    /**
     * For records from a broker, read within the default {@link RecordLimits}.
     *
     * @return {@code records} itself when nothing changed, else new records
     * @throws UnreadableRecords as {@link #rewrite(MemoryRecords, int, RecordReader, RecordTransform)}
     */
    public static MemoryRecords rewrite(MemoryRecords records, RecordTransform transform) {
        return rewrite(records, records.sizeInBytes() + 1024, RecordReader.forFetch(RecordLimits.DEFAULTS), transform);
    }

    /**
     * Only complete batches whose records were all read and given to {@code transform} are returned: a truncated
     * last batch (a Fetch cut by its size limit) is left out, so no byte of an unchecked record passes.
     *
     * @param expectedSize the likely size of the result; a transform that grows records says by how much, so the
     *                     output is allocated once rather than grown (and copied) on the way
     * @param reader       reads the records within the request's limits
     * @return {@code records} itself when nothing changed and nothing was left out, else new records
     * @throws UnreadableRecords when a batch cannot be read; its {@link UnreadableRecords#checked()} holds the
     *                           rewritten batches before that one
     */
    public static MemoryRecords rewrite(MemoryRecords records, int expectedSize, RecordReader reader, RecordTransform transform) {
        RecordReader.Batches batches = reader.batches(records);
        ByteBufferOutputStream out = null;
        int unchangedBytes = 0;
        try {
            for (MutableRecordBatch batch : batches.complete()) {
                Changes changes = batch.isControlBatch() ? null : changes(batch, reader.read(batch), transform);
                if (changes == null) {
                    if (out == null) {
                        unchangedBytes += batch.sizeInBytes();
                    } else {
                        batch.writeTo(out);
                    }
                    continue;
                }
                if (out == null) {
                    out = new ByteBufferOutputStream(Math.max(expectedSize, 64));
                    // The batches before the first changed one are taken as they are.
                    out.write(prefix(records, unchangedBytes).buffer());
                }
                int before = out.position();
                try {
                    rebuild(batch, changes, out);
                } catch (IllegalArgumentException | IllegalStateException e) {
                    // The builder's own checks: record offsets out of order or outside the batch's range. What it
                    // wrote of this batch is taken back, so only the batches before it are passed on.
                    out.position(before);
                    throw reader.corrupt(batch, e.getMessage());
                }
            }
        } catch (UnreadableRecords e) {
            throw e.withChecked(result(records, out, unchangedBytes));
        }
        if (batches.problem() != null) {
            throw batches.problem().withChecked(result(records, out, unchangedBytes));
        }
        return result(records, out, unchangedBytes);
    }

    private static MemoryRecords result(MemoryRecords records, ByteBufferOutputStream out, int unchangedBytes) {
        if (out == null) {
            return unchangedBytes == records.sizeInBytes() ? records : prefix(records, unchangedBytes);
        }
        ByteBuffer buffer = out.buffer().duplicate();
        buffer.flip();
        return MemoryRecords.readableRecords(buffer.slice());
    }

    /** The first {@code bytes} of {@code records}, shared, not copied. */
    private static MemoryRecords prefix(MemoryRecords records, int bytes) {
        ByteBuffer buffer = records.buffer();
        buffer.limit(buffer.position() + bytes);
        return MemoryRecords.readableRecords(buffer.slice());
    }

    /** A batch's records (read once: a compressed batch is decompressed once) and the replacements by index. */
    private record Changes(List<Record> records, Rewritten[] replacements) {
    }

    /** The changes the transform makes to a batch's records; null when it changes none. */
    private static Changes changes(RecordBatch batch, List<Record> records, RecordTransform transform) {
        Rewritten[] replacements = null;
        for (int i = 0; i < records.size(); i++) {
            Rewritten changed = transform.apply(batch, records.get(i));
            if (changed != null) {
                if (replacements == null) {
                    replacements = new Rewritten[records.size()];
                }
                replacements[i] = changed;
            }
        }
        return replacements == null ? null : new Changes(records, replacements);
    }

    private static void rebuild(RecordBatch batch, Changes changes, ByteBufferOutputStream out) {
        if (batch.compressionType() == CompressionType.NONE) {
            UncompressedBatch.write(batch, changes.records(), changes.replacements(), out);
            return;
        }
        MemoryRecordsBuilder builder = new MemoryRecordsBuilder(out, batch.magic(), Compression.of(batch.compressionType()).build(), batch.timestampType(),
                batch.baseOffset(), batch.timestampType() == TimestampType.LOG_APPEND_TIME ? batch.maxTimestamp() : RecordBatch.NO_TIMESTAMP,
                batch.producerId(), batch.producerEpoch(), batch.baseSequence(), batch.isTransactional(), false, batch.partitionLeaderEpoch(),
                Integer.MAX_VALUE);
        List<Record> records = changes.records();
        int kept = 0;
        for (int i = 0; i < records.size(); i++) {
            Record record = records.get(i);
            Rewritten changed = changes.replacements()[i];
            if (changed == DROP) {
                continue;
            }
            kept++;
            if (changed == null) {
                builder.appendWithOffset(record.offset(), record.timestamp(), record.key(), record.value(), record.headers());
            } else {
                builder.appendWithOffset(record.offset(), record.timestamp(), record.key(), changed.value(), changed.headers());
            }
        }
        if (kept == 0) {
            builder.abort();
            writeEmptyBatch(batch, out);
            return;
        }
        builder.overrideLastOffset(batch.lastOffset());
        // The builder writes into `out` directly; closing it finalises the batch header (CRC, counts).
        builder.close();
    }

    /** A batch with no records but the original's offsets and producer state, as the log cleaner writes them. */
    static void writeEmptyBatch(RecordBatch batch, ByteBufferOutputStream out) {
        ByteBuffer header = ByteBuffer.allocate(DefaultRecordBatch.RECORD_BATCH_OVERHEAD);
        DefaultRecordBatch.writeEmptyHeader(header, batch.magic(), batch.producerId(), batch.producerEpoch(), batch.baseSequence(), batch.baseOffset(),
                batch.lastOffset(), batch.partitionLeaderEpoch(), batch.timestampType(), batch.maxTimestamp(), batch.isTransactional(), false);
        out.write(header.array(), 0, DefaultRecordBatch.RECORD_BATCH_OVERHEAD);
    }
}
