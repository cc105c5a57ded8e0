package io.sluice.filter.jwt.enforce;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;

import org.apache.kafka.common.compress.Compression;
import org.apache.kafka.common.record.DefaultRecordBatch;
import org.apache.kafka.common.record.MemoryRecords;
import org.apache.kafka.common.record.MemoryRecordsBuilder;
import org.apache.kafka.common.record.MutableRecordBatch;
import org.apache.kafka.common.record.Record;
import org.apache.kafka.common.record.RecordBatch;
import org.apache.kafka.common.record.TimestampType;
import org.apache.kafka.common.utils.BufferSupplier;
import org.apache.kafka.common.utils.ByteBufferOutputStream;
import org.apache.kafka.common.utils.CloseableIterator;

import io.sluice.auth.KeyAccess;

/**
 * Removes the records a principal may not read from fetched record batches, the way the log cleaner removes
 * compacted records: every batch keeps its base and last offset, producer id, epoch and sequence,
 * transactional flag, partition leader epoch and compression, so consumers advance past the gaps exactly as
 * they advance past compacted ones.
 *
 * <ul>
 *   <li>a batch with nothing to remove, and every control batch (transaction markers), is copied unchanged;</li>
 *   <li>a batch with some records removed is rebuilt from the rest, its last offset set to the original's;</li>
 *   <li>a batch with every record removed becomes an empty batch header covering the same offsets, so the
 *       consumer's position still moves past it and commits and resumes after it.</li>
 * </ul>
 */
public final class RecordKeyFilter {

    private RecordKeyFilter() {
    }

    /** The records {@code read} allows; {@code records} itself when it allows them all. */
    public static MemoryRecords filter(MemoryRecords records, KeyAccess read) {
        if (read.all() || records.sizeInBytes() == 0) {
            return records;
        }
        ByteBufferOutputStream out = null;
        int unchangedBytes = 0;
        for (MutableRecordBatch batch : records.batches()) {
            List<Record> kept = batch.isControlBatch() ? null : allowed(batch, read);
            if (kept == null) {
                if (out != null) {
                    batch.writeTo(out);
                } else {
                    unchangedBytes += batch.sizeInBytes();
                }
                continue;
            }
            if (out == null) {
                // The first batch that changes: copy the unchanged ones before it as they are.
                out = new ByteBufferOutputStream(records.sizeInBytes());
                ByteBuffer before = records.buffer();
                before.limit(before.position() + unchangedBytes);
                out.write(before);
            }
            if (kept.isEmpty()) {
                writeEmpty(batch, out);
            } else {
                rebuild(batch, kept, out);
            }
        }
        if (out == null) {
            return records;
        }
        ByteBuffer result = out.buffer();
        result.flip();
        return MemoryRecords.readableRecords(result);
    }

    /** Null when every record is allowed (the batch stays as it is), else the allowed ones. */
    private static List<Record> allowed(RecordBatch batch, KeyAccess read) {
        List<Record> kept = new ArrayList<>();
        boolean removed = false;
        try (CloseableIterator<Record> it = batch.streamingIterator(BufferSupplier.NO_CACHING)) {
            while (it.hasNext()) {
                Record record = it.next();
                if (read.allows(record.key())) {
                    kept.add(record);
                } else {
                    removed = true;
                }
            }
        }
        return removed ? kept : null;
    }

    private static void writeEmpty(RecordBatch batch, ByteBufferOutputStream out) {
        if (batch.magic() < RecordBatch.MAGIC_VALUE_V2) {
            // Old formats cannot express an empty batch; consumers of them track offsets per record anyway.
            return;
        }
        out.ensureRemaining(DefaultRecordBatch.RECORD_BATCH_OVERHEAD);
        DefaultRecordBatch.writeEmptyHeader(out.buffer(), batch.magic(), batch.producerId(), batch.producerEpoch(), batch.baseSequence(),
                batch.baseOffset(), batch.lastOffset(), batch.partitionLeaderEpoch(), batch.timestampType(), batch.maxTimestamp(),
                batch.isTransactional(), false);
    }

    private static void rebuild(RecordBatch batch, List<Record> kept, ByteBufferOutputStream out) {
        TimestampType timestampType = batch.timestampType();
        long logAppendTime = timestampType == TimestampType.LOG_APPEND_TIME ? batch.maxTimestamp() : RecordBatch.NO_TIMESTAMP;
        long baseOffset = batch.magic() >= RecordBatch.MAGIC_VALUE_V2 ? batch.baseOffset() : kept.get(0).offset();
        MemoryRecordsBuilder builder = new MemoryRecordsBuilder(out, batch.magic(), Compression.of(batch.compressionType()).build(),
                timestampType, baseOffset, logAppendTime, batch.producerId(), batch.producerEpoch(), batch.baseSequence(),
                batch.isTransactional(), false, batch.partitionLeaderEpoch(), Integer.MAX_VALUE);
        for (Record record : kept) {
            builder.append(record);
        }
        if (batch.magic() >= RecordBatch.MAGIC_VALUE_V2) {
            // Keeps the batch's offset range (and so its sequence range) whole, as the log cleaner does.
            builder.overrideLastOffset(batch.lastOffset());
        }
        builder.close();
    }
}
