package io.sluice.filter.records;

import java.io.ByteArrayOutputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.lang.management.ManagementFactory;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

import org.apache.kafka.common.compress.Compression;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.record.CompressionType;
import org.apache.kafka.common.record.DefaultRecord;
import org.apache.kafka.common.record.DefaultRecordBatch;
import org.apache.kafka.common.record.MemoryRecords;
import org.apache.kafka.common.record.MemoryRecordsBuilder;
import org.apache.kafka.common.record.RecordBatch;
import org.apache.kafka.common.record.SimpleRecord;
import org.apache.kafka.common.record.TimestampType;
import org.apache.kafka.common.utils.ByteBufferOutputStream;
import org.apache.kafka.common.utils.ByteUtils;
import org.apache.kafka.common.utils.Crc32C;

/**
 * Record batches as an attacker writes them: headers that lie about their records, decompression bombs, record
 * bodies claiming 2 GiB, old message formats. Each has a valid CRC, so only reading the records shows what they are.
 */
public final class ForgedBatches {

    // Positions in a v2 batch header (DefaultRecordBatch's own layout).
    private static final int LENGTH_OFFSET = 8;
    private static final int CRC_OFFSET = 17;
    private static final int ATTRIBUTES_OFFSET = 21;
    private static final int LAST_OFFSET_DELTA_OFFSET = 23;
    private static final int RECORDS_COUNT_OFFSET = 57;

    private ForgedBatches() {
    }

    /** One record as it sits in a v2 batch (length-prefixed), at {@code offsetDelta}. */
    public static byte[] record(int offsetDelta, String key, String value) {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        try {
            DefaultRecord.writeTo(new DataOutputStream(bytes), offsetDelta, 0, utf8(key), utf8(value), new Header[0]);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return bytes.toByteArray();
    }

    /** The varint a record starts with, its body's length: what a record claiming {@code bodyBytes} begins with. */
    public static byte[] bodyLength(int bodyBytes) {
        ByteBuffer buffer = ByteBuffer.allocate(5);
        ByteUtils.writeVarint(bodyBytes, buffer);
        buffer.flip();
        byte[] out = new byte[buffer.remaining()];
        buffer.get(out);
        return out;
    }

    /**
     * A v2 batch whose header claims {@code claimedCount} records (offsets 0 to {@code claimedCount - 1}), holding
     * {@code content} (record bytes, or anything) compressed with {@code codec}; its length and CRC are right.
     */
    public static MemoryRecords forge(CompressionType codec, int claimedCount, byte[]... content) {
        MemoryRecords template = MemoryRecords.withRecords(Compression.of(codec).build(), new SimpleRecord(0L, null, new byte[0]));
        ByteBufferOutputStream body = new ByteBufferOutputStream(256);
        try (OutputStream out = Compression.of(codec).build().wrapForOutput(body, RecordBatch.MAGIC_VALUE_V2)) {
            for (byte[] part : content) {
                out.write(part);
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        ByteBuffer compressed = body.buffer().flip();
        int size = DefaultRecordBatch.RECORD_BATCH_OVERHEAD + compressed.remaining();
        ByteBuffer batch = ByteBuffer.allocate(size);
        batch.put(template.buffer().limit(DefaultRecordBatch.RECORD_BATCH_OVERHEAD));
        batch.put(compressed);
        batch.putInt(LENGTH_OFFSET, size - 12);
        batch.putInt(RECORDS_COUNT_OFFSET, claimedCount);
        batch.putInt(LAST_OFFSET_DELTA_OFFSET, Math.max(0, claimedCount - 1));
        batch.flip();
        batch.putInt(CRC_OFFSET, (int) Crc32C.compute(batch, ATTRIBUTES_OFFSET, size - ATTRIBUTES_OFFSET));
        return MemoryRecords.readableRecords(batch);
    }

    /**
     * A genuine batch of {@code records} records with key {@code key}, each value {@code valueBytes} zero bytes: a
     * decompression bomb when compressed (64 MiB of zeros are a few KiB of zstd).
     */
    public static MemoryRecords bomb(CompressionType codec, String key, int records, int valueBytes) {
        MemoryRecordsBuilder builder = MemoryRecords.builder(ByteBuffer.allocate(64 * 1024), RecordBatch.CURRENT_MAGIC_VALUE, Compression.of(codec).build(),
                TimestampType.CREATE_TIME, 0L);
        ByteBuffer zeros = ByteBuffer.allocate(valueBytes);
        for (int i = 0; i < records; i++) {
            builder.append(0L, utf8(key), zeros.duplicate());
        }
        return builder.build();
    }

    /** A message format v1 batch (magic 1), as producers before Kafka 0.11 wrote them. */
    public static MemoryRecords oldFormat(String key, String value) {
        return MemoryRecords.withRecords(RecordBatch.MAGIC_VALUE_V1, 0L, Compression.NONE, TimestampType.CREATE_TIME,
                new SimpleRecord(0L, key.getBytes(StandardCharsets.UTF_8), value.getBytes(StandardCharsets.UTF_8)));
    }

    /** {@code parts} one after the other, as one partition's records. */
    public static MemoryRecords concat(MemoryRecords... parts) {
        ByteBufferOutputStream out = new ByteBufferOutputStream(1024);
        for (MemoryRecords part : parts) {
            out.write(part.buffer());
        }
        ByteBuffer buffer = out.buffer();
        buffer.flip();
        return MemoryRecords.readableRecords(buffer);
    }

    /** The complete batches of {@code records}. */
    public static List<RecordBatch> batches(MemoryRecords records) {
        List<RecordBatch> out = new ArrayList<>();
        records.batches().forEach(out::add);
        return out;
    }

    /** Bytes allocated so far by the proxy's event loop threads (where filters run), for "no big allocation" checks. */
    public static long proxyThreadsAllocated() {
        com.sun.management.ThreadMXBean threads = (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
        long total = 0;
        for (var info : threads.getThreadInfo(threads.getAllThreadIds())) {
            if (info != null && info.getThreadName().startsWith("sluice-proxy")) {
                total += threads.getThreadAllocatedBytes(info.getThreadId());
            }
        }
        return total;
    }

    private static ByteBuffer utf8(String s) {
        return s == null ? null : ByteBuffer.wrap(s.getBytes(StandardCharsets.UTF_8));
    }
}
