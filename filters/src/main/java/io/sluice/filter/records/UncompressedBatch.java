package io.sluice.filter.records;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.List;

import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.record.DefaultRecord;
import org.apache.kafka.common.record.DefaultRecordBatch;
import org.apache.kafka.common.record.Record;
import org.apache.kafka.common.record.RecordBatch;
import org.apache.kafka.common.record.TimestampType;
import org.apache.kafka.common.utils.ByteBufferOutputStream;
import org.apache.kafka.common.utils.ByteUtils;

/**
 * Writes one rewritten uncompressed batch straight into the output: the records' exact size is computed first, the
 * output grown once, and each record framed by hand into it (its value and headers copied once), then the batch header
 * and CRC written in front. The same bytes kafka-clients' {@code MemoryRecordsBuilder} writes for such a batch (same
 * base timestamp, max timestamp, offsets, producer state, partition leader epoch; no delete horizon), without its
 * {@code DataOutputStream} of one call per varint byte, which was a fifth of encrypting a partition (docs/encryption.md,
 * "Cost of encryption"). Compressed batches still go through the builder, which owns the codecs.
 */
final class UncompressedBatch {

    private UncompressedBatch() {
    }

    /** @param replacements by index: null keeps the record, {@link BatchRewriter#DROP} removes it */
    static void write(RecordBatch batch, List<Record> records, BatchRewriter.Rewritten[] replacements, ByteBufferOutputStream out) {
        Long baseTimestamp = null;
        long maxTimestamp = RecordBatch.NO_TIMESTAMP;
        long size = DefaultRecordBatch.RECORD_BATCH_OVERHEAD;
        int kept = 0;
        for (int i = 0; i < records.size(); i++) {
            BatchRewriter.Rewritten changed = replacements[i];
            if (changed == BatchRewriter.DROP) {
                continue;
            }
            Record record = records.get(i);
            if (baseTimestamp == null) {
                baseTimestamp = record.timestamp();
            }
            maxTimestamp = Math.max(maxTimestamp, record.timestamp());
            size += recordSize(batch, record, baseTimestamp, value(record, changed), headers(record, changed));
            kept++;
        }
        if (kept == 0) {
            BatchRewriter.writeEmptyBatch(batch, out);
            return;
        }
        if (size > Integer.MAX_VALUE - 16) {
            throw new IllegalArgumentException("rewritten batch of " + size + " bytes");
        }
        int start = out.position();
        out.ensureRemaining((int) size);
        ByteBuffer buffer = out.buffer();
        buffer.position(start + DefaultRecordBatch.RECORD_BATCH_OVERHEAD);
        for (int i = 0; i < records.size(); i++) {
            BatchRewriter.Rewritten changed = replacements[i];
            if (changed != BatchRewriter.DROP) {
                Record record = records.get(i);
                writeRecord(buffer, batch, record, baseTimestamp, value(record, changed), headers(record, changed));
            }
        }
        int end = buffer.position();
        if (end - start != size) {
            throw new IllegalStateException("rewritten batch took " + (end - start) + " bytes, " + size + " computed");
        }
        if (batch.timestampType() == TimestampType.LOG_APPEND_TIME) {
            maxTimestamp = batch.maxTimestamp();
        }
        buffer.position(start);
        // Written last: the CRC covers the records after it.
        DefaultRecordBatch.writeHeader(buffer, batch.baseOffset(), (int) (batch.lastOffset() - batch.baseOffset()), (int) size, batch.magic(),
                batch.compressionType(), batch.timestampType(), baseTimestamp, maxTimestamp, batch.producerId(), batch.producerEpoch(),
                batch.baseSequence(), batch.isTransactional(), false, false, batch.partitionLeaderEpoch(), kept);
        buffer.position(end);
    }

    private static ByteBuffer value(Record record, BatchRewriter.Rewritten changed) {
        return changed == null ? record.value() : changed.value();
    }

    private static Header[] headers(Record record, BatchRewriter.Rewritten changed) {
        return changed == null ? record.headers() : changed.headers();
    }

    private static int recordSize(RecordBatch batch, Record record, long baseTimestamp, ByteBuffer value, Header[] headers) {
        return DefaultRecord.sizeInBytes(offsetDelta(batch, record), record.timestamp() - baseTimestamp, record.keySize(),
                value == null ? -1 : value.remaining(), headers);
    }

    private static int offsetDelta(RecordBatch batch, Record record) {
        return (int) (record.offset() - batch.baseOffset());
    }

    /** The record as DefaultRecord.writeTo frames it: body length, attributes, deltas, key, value, headers. */
    private static void writeRecord(ByteBuffer out, RecordBatch batch, Record record, long baseTimestamp, ByteBuffer value, Header[] headers) {
        int offsetDelta = offsetDelta(batch, record);
        long timestampDelta = record.timestamp() - baseTimestamp;
        ByteUtils.writeVarint(DefaultRecord.sizeOfBodyInBytes(offsetDelta, timestampDelta, record.keySize(), value == null ? -1 : value.remaining(), headers), out);
        out.put((byte) 0);
        ByteUtils.writeVarlong(timestampDelta, out);
        ByteUtils.writeVarint(offsetDelta, out);
        bytes(out, record.hasKey() ? record.key() : null);
        bytes(out, value);
        ByteUtils.writeVarint(headers.length, out);
        for (Header header : headers) {
            byte[] key = header.key().getBytes(StandardCharsets.UTF_8);
            ByteUtils.writeVarint(key.length, out);
            out.put(key);
            byte[] v = header.value();
            if (v == null) {
                ByteUtils.writeVarint(-1, out);
            } else {
                ByteUtils.writeVarint(v.length, out);
                out.put(v);
            }
        }
    }

    private static void bytes(ByteBuffer out, ByteBuffer bytes) {
        if (bytes == null) {
            ByteUtils.writeVarint(-1, out);
            return;
        }
        ByteUtils.writeVarint(bytes.remaining(), out);
        out.put(bytes.duplicate());
    }
}
